/**
 * The internal message format: the OpenAI chat shape. Adapters convert from it
 * (Anthropic) or pass it through (OpenAI-compatible).
 */

export interface LlmToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Every message of a conversation names the thread it belongs to: set
 * from the store when a history is built and by the loop for what a run adds; checked before every
 * upstream call, never sent upstream. System messages built for one call (notes, recalled memory)
 * may carry none.
 *
 * `cacheBreakpoint` marks the end of a stable prefix of the prompt (the stable prompt levels, the
 * end of the history): providers with explicit prompt caching put a
 * cache breakpoint after that message (Anthropic cache_control, at most 4 per request); providers
 * that cache prefixes on their own (OpenAI, DeepSeek) ignore it. Neither is sent upstream as such.
 */
interface MessageMarkers {
  threadId?: string;
  cacheBreakpoint?: boolean;
}

export interface LlmSystemMessage extends MessageMarkers {
  role: 'system';
  content: string;
}

export interface LlmUserMessage extends MessageMarkers {
  role: 'user';
  content: string;
}

export interface LlmAssistantMessage extends MessageMarkers {
  role: 'assistant';
  content: string | null;
  tool_calls?: LlmToolCall[];
}

export interface LlmToolMessage extends MessageMarkers {
  role: 'tool';
  content: string;
  tool_call_id: string;
  /** The tool the call named; stored with the result, not sent (the wire pairs by id). */
  name?: string;
  /** The call did what it was asked (a read ran, a decision was applied); false for an error result. Stored, not sent. */
  success?: boolean;
  /** How long producing the result took. Stored, not sent. */
  durationMs?: number;
}

export type LlmMessage = LlmSystemMessage | LlmUserMessage | LlmAssistantMessage | LlmToolMessage;

/** A tool offered to the model, in OpenAI function-calling form; `parameters` is a JSON Schema. */
export interface LlmToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

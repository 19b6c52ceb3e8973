/**
 * The internal message format: the OpenAI chat shape (docs/llm-providers.md). Adapters convert from it
 * (Anthropic) or pass it through (OpenAI-compatible).
 */

export interface LlmToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface LlmSystemMessage {
  role: 'system';
  content: string;
  /**
   * Marks the end of the stable prefix (system prompt): providers with prompt caching put a cache
   * breakpoint after it (Anthropic cache_control); others ignore it.
   */
  cacheBreakpoint?: boolean;
}

export interface LlmUserMessage {
  role: 'user';
  content: string;
}

export interface LlmAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: LlmToolCall[];
}

export interface LlmToolMessage {
  role: 'tool';
  content: string;
  tool_call_id: string;
}

export type LlmMessage = LlmSystemMessage | LlmUserMessage | LlmAssistantMessage | LlmToolMessage;

/** A tool offered to the model, in OpenAI function-calling form; `parameters` is a JSON Schema. */
export interface LlmToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * The internal message format: the OpenAI chat shape (docs/llm-providers.md). Adapters convert from it
 * (Anthropic) or pass it through (OpenAI-compatible).
 */

export interface LlmToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * `cacheBreakpoint` marks the end of a stable prefix of the prompt (the stable prompt levels, the
 * end of the history: docs/agent.md, "Prompt levels"): providers with explicit prompt caching put a
 * cache breakpoint after that message (Anthropic cache_control, at most 4 per request); providers
 * that cache prefixes on their own (OpenAI, DeepSeek) ignore it.
 */
interface CacheMarker {
  cacheBreakpoint?: boolean;
}

export interface LlmSystemMessage extends CacheMarker {
  role: 'system';
  content: string;
}

export interface LlmUserMessage extends CacheMarker {
  role: 'user';
  content: string;
}

export interface LlmAssistantMessage extends CacheMarker {
  role: 'assistant';
  content: string | null;
  tool_calls?: LlmToolCall[];
}

export interface LlmToolMessage extends CacheMarker {
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

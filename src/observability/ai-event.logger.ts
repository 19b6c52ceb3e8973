import { isAiDebugEnabled, Logger } from './logger';
import { upstreamErrorText } from './upstream-error.masker';

/** The debug events; emitted only when AI_DEBUG is on. */
export type AiDebugEvent =
  | 'agent_chat_start'
  | 'agent_automation_start'
  | 'rag_retrieve'
  | 'rag_embedding'
  | 'llm_call_start'
  | 'llm_call_done'
  | 'tool_execute'
  | 'tool_result'
  | 'hitl_interrupt'
  | 'ws_chat'
  | 'ws_resume';

const MALFORMED_RAW_MAX_CHARS = 500;

export interface LlmErrorEvent {
  provider: string;
  model?: string;
  code: string;
  retryable?: boolean;
  /** HTTP status the upstream answered, when there was one. */
  statusCode?: number | null;
  threadId?: string;
  sessionId?: string | number;
  attempt?: number;
  /** Whether tokens had already been streamed when it failed (then it is never retried). */
  afterFirstChunk?: boolean;
  error?: unknown;
  /** Values cut out of the upstream's message (the provider's API key: some upstreams echo it). */
  secrets?: readonly string[];
}

export interface TokenUsageEvent {
  provider: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  threadId?: string;
  workspace?: string;
  kind?: 'chat' | 'embedding';
}

/**
 * The AI events on top of the JSON Logger (same sink: setLogSink): llm_error,
 * malformed_json, client_disconnect_abort, token_usage, and the AI_DEBUG-only debug events. Never
 * logs message content, except the malformed JSON itself when AI_DEBUG is on.
 */
export class AiEventLogger {
  private readonly logger: Logger;

  constructor(scope = 'ai') {
    this.logger = new Logger(scope);
  }

  llmError(event: LlmErrorEvent): void {
    const { error, secrets, ...fields } = event;
    this.logger.error('llm_error', {
      ...fields,
      errorName: error instanceof Error ? error.name : error === undefined ? undefined : typeof error,
      // Upstream error messages may echo the request: the key, the user's text, an address in it (masked).
      errorMessage: error instanceof Error ? upstreamErrorText(error, secrets) : undefined,
    });
  }

  /** JSON from the model or the wire that did not parse; `corrected` is what was used instead. */
  malformedJson(event: { raw: string; context: string; corrected?: string; threadId?: string }): void {
    const { raw, ...fields } = event;
    this.logger.warn('malformed_json', {
      ...fields,
      rawLength: raw.length,
      // The raw text may hold conversation content: only under AI_DEBUG.
      ...(isAiDebugEnabled() ? { raw: raw.slice(0, MALFORMED_RAW_MAX_CHARS) } : {}),
    });
  }

  clientDisconnectAbort(event: { sessionId?: string | number; threadId?: string; tokensStreamed: number }): void {
    this.logger.warn('client_disconnect_abort', { ...event });
  }

  tokenUsage(event: TokenUsageEvent): void {
    this.logger.info('token_usage', { ...event });
  }

  /** Only with AI_DEBUG; may carry content (queries, tool names, lengths). */
  debug(event: AiDebugEvent, fields: Record<string, unknown> = {}): void {
    this.logger.debugEvent(event, fields);
  }
}

import type { PromptStats } from './prompt-cache';

/**
 * The script of the scripted LLM server: protocol-agnostic turns, each rendered in the wire format
 * of the endpoint that received the request (OpenAI chat.completions, Anthropic Messages).
 */

export interface ScriptedToolCall {
  /** Default: `call_scripted_<turn>_<i>` (OpenAI) / `toolu_scripted_<turn>_<i>` (Anthropic). */
  id?: string;
  name: string;
  /** JSON text (sent as is, even if invalid) or an object (JSON-stringified). Default "{}". */
  arguments?: string | Record<string, unknown>;
  /** How the arguments are cut on the wire: a number of pieces (default 3) or the exact pieces. */
  fragments?: number | string[];
}

/** `prompt` includes the cached part (as OpenAI counts); Anthropic gets input = prompt − cached. */
export interface ScriptedUsage {
  prompt: number;
  completion: number;
  cached?: number;
}

/** An HTTP error answered with the provider's real error body shape unless `body` is given. */
export interface ScriptedError {
  status: number;
  /** Replaces the default body (object → JSON, string → sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
  /** error.type / error.code / error.message of the default body. */
  type?: string;
  code?: string;
  message?: string;
}

/** A failure announced inside a 200 stream (`event: error`), after the turn's content, without a normal end. */
export interface ScriptedStreamError {
  type?: string;
  code?: string;
  message?: string;
  /** Groq puts the HTTP status it would have answered in the error body. */
  status?: number;
}

export interface ScriptedTurn {
  /** Assistant text, streamed in pieces of `chunkSize` characters. */
  text?: string;
  /** Characters per text delta (default 4). */
  chunkSize?: number;
  /** OpenAI wire only: `delta.reasoning_content` pieces before the text (DeepSeek reasoning models). */
  reasoning?: string;
  /** Tool calls after the text; several = parallel calls (OpenAI index 0, 1, ...; Anthropic tool_use blocks). */
  toolCalls?: ScriptedToolCall[];
  /** OpenAI wire only: interleave the argument fragments of parallel calls. */
  interleaveToolCalls?: boolean;
  /** OpenAI wire only: send tool-call deltas without `id` (some compatible servers do). */
  omitToolCallIds?: boolean;
  /**
   * Usage to report. Undefined: derived from the request and the answer, and on the OpenAI wire sent
   * only when the request asked for it (stream_options.include_usage), like OpenAI. Null: none.
   */
  usage?: ScriptedUsage | null;
  /** OpenAI wire: usage in its own final chunk (`choices: []`, default) or on the finish chunk (DeepSeek). */
  usagePlacement?: 'separate-chunk' | 'finish-chunk';
  /** SSE comment lines (`: keep-alive`) between events, as OpenRouter sends. */
  comments?: boolean;
  /** Default: "stop"/"tool_calls" (OpenAI), "end_turn"/"tool_use" (Anthropic). */
  finishReason?: string;
  /** Ends the stream with an `event: error` after the content instead of finishing normally. */
  streamError?: ScriptedStreamError;
  /** Answer an HTTP error instead of a completion. */
  error?: ScriptedError;
  /** Replay a shared fixture (path under ../shared/fixtures/llm/) with the manifest's status and content type. */
  fixture?: string;
  /** Extra response headers (e.g. on a fixture replay). */
  headers?: Record<string, string>;
  /** Wait before each SSE event (or before the JSON body): slow streams. */
  delayMs?: number;
  /** Destroy the connection after this many SSE events (mid-stream disconnect); 0 = right after the headers. */
  disconnectAfterChunks?: number;
  /** End the response normally after this many SSE events: a truncated stream that looks complete on the wire. */
  endAfterChunks?: number;
  /** Send this many SSE events, then keep the connection open until the client closes it (abort tests). */
  hangAfterChunks?: number;
  /** Model echoed in the answer (default: the request's model). */
  model?: string;
  /**
   * After this many SSE events of the rendered stream, send `data` (any bytes: broken JSON, an HTML
   * page...) instead of the rest, then end the response normally: a corrupted stream.
   */
  corruptAfterChunks?: { chunks: number; data: string };
  /** Answer exactly this instead of a rendered turn (status, headers, pieces): e.g. an HTML error page with status 200. */
  raw?: { status: number; headers?: Record<string, string>; chunks: string[] };
}

/** What the server recorded about one request (secrets redacted from headers). */
export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  endpoint: 'openai.chat' | 'anthropic.messages' | 'openai.embeddings' | 'unknown';
  /** Lower-case names; authorization / x-api-key / api-key values are "[redacted]". */
  headers: Record<string, string>;
  /**
   * SHA-256 (hex) of the API key the client presented (`Authorization: Bearer <key>`, `x-api-key`,
   * `api-key`), null without one: tests check which key was sent without the key being recorded.
   */
  apiKeySha256: string | null;
  /** Parsed JSON body (the raw text when it was not JSON). */
  body: any;
  /** The request asked for a stream (`"stream": true`). */
  stream: boolean;
  receivedAt: number;
  status: number | null;
  /** SSE events (or JSON bodies) written. */
  chunksSent: number;
  /** The server wrote the whole response. */
  completed: boolean;
  /** The client closed the connection before the server finished (abort, disconnect). */
  closedEarly: boolean;
  closedAt: number | null;
  /** The queue was empty: answered 500 "script exhausted". */
  exhausted: boolean;
  /** Chat requests the model received: the prompt as the provider counts it (size, prefix shared with the previous request, cache). */
  prompt: PromptStats | null;
  /** Derived usage reports the prompt's tokens and cache as counted in `prompt` (the server's promptCache option). */
  promptCacheReported: boolean;
}

/** A turn, or a function of the recorded request returning one (to answer depending on what was sent). */
export type ScriptedTurnInput = ScriptedTurn | ((request: RecordedRequest) => ScriptedTurn);

/** One scripted /embeddings answer; without a queued item the server answers deterministic vectors. */
export interface ScriptedEmbeddings {
  vectors?: number[][];
  error?: ScriptedError;
  /** Replay a shared fixture (e.g. openai/embeddings-text-embedding-3-small.json). */
  fixture?: string;
  delayMs?: number;
}

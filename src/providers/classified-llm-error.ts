import type { ErrorCode } from '../errors/error-code';

/** An LLM failure as the classifier sees it, with the Retry-After the upstream asked for. */
export interface ClassifiedLlmError {
  code: ErrorCode;
  retryable: boolean;
  /** HTTP status the upstream answered (or reported inside a stream error), null when none. */
  statusCode: number | null;
  /** Registry name when known ("deepseek", "anthropic", ...), else guessed from the SDK ("openai", "anthropic"), else "unknown". */
  provider: string;
  userMessage: string;
  /** From `retry-after-ms` / `retry-after` (seconds or HTTP date), null when absent. */
  retryAfterMs: number | null;
}

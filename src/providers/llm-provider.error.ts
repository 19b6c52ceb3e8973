import { AppError } from '../errors/app-error';
import type { ClassifiedLlmError } from './classified-llm-error';

/**
 * A classified upstream failure, thrown by the providers after retries: an AppError whose code is
 * one of the protocol's error codes (rate_limit, server_error, auth_error, ...) and whose message is the
 * localized user message, so the HTTP filter and the gateway can send it as is. The SDK error
 * stays in `cause` for logs.
 */
export class LlmProviderError extends AppError {
  readonly provider: string;
  /** HTTP status the upstream answered, when there was one. */
  readonly upstreamStatus: number | null;
  readonly retryAfterMs: number | null;

  constructor(
    readonly classified: ClassifiedLlmError,
    cause: unknown,
  ) {
    super(
      classified.code,
      classified.userMessage,
      { provider: classified.provider, upstreamStatus: classified.statusCode },
      { retryable: classified.retryable, cause, userMessage: classified.userMessage },
    );
    this.name = 'LlmProviderError';
    this.provider = classified.provider;
    this.upstreamStatus = classified.statusCode;
    this.retryAfterMs = classified.retryAfterMs;
  }
}

import type { Locale } from '../../config/app-config';
import { AppError } from '../../errors/app-error';
import { ErrorCode, RETRYABLE_CODES } from '../../errors/error-code';
import { logUnhandledError } from '../../errors/unhandled-error.logger';
import { Logger } from '../../observability/logger';
import { LLM_ERROR_MESSAGES, LlmErrorCode } from '../../errors/llm-error.messages';
import { LlmProviderError } from '../../providers/llm-provider.error';
import { TokenLimitError } from '../../providers/token-limit.error';
import type { AiErrorEvent } from './ai-socket.events';
import { ServiceErrorCode, USER_ERROR_MESSAGES } from './user-error.messages';

/**
 * Internal codes outside PROTOCOL.md §4's list, and the listed code a socket client gets instead
 * (HTTP keeps the precise code: 409 conflict, 409 read_only_store, 503 store_unavailable).
 */
const WIRE_CODE: Partial<Record<ErrorCode, ErrorCode>> = {
  conflict: 'bad_request',
  read_only_store: 'forbidden',
  store_unavailable: 'server_error',
};

/** Codes whose user text gets the technical detail appended (the client developer needs it). */
const WITH_DETAIL: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['bad_request', 'payload_too_large']);

const logger = new Logger('gateway');

/**
 * Turns anything a socket request failed with into the `ai:error` fields: a PROTOCOL.md code, its
 * retryable flag and a user-facing text in the AI_LOCALE language — the classifier's text for LLM
 * failures (already localized), the service's message table otherwise. Unknown errors become
 * `internal` with a correlation id, logged once with the stack. Pure: no Nest.
 */
export class SocketErrorPresenter {
  constructor(private readonly locale: Locale) {}

  present(error: unknown): Omit<AiErrorEvent, '_id'> {
    // `retryable` follows the code sent (PROTOCOL.md §4), whatever the error says: a client decides on the pair.
    if (error instanceof LlmProviderError || error instanceof TokenLimitError) {
      const wireCode = WIRE_CODE[error.code] ?? error.code;
      return { error: error.message, code: wireCode, retryable: RETRYABLE_CODES.has(wireCode) };
    }
    if (error instanceof AppError) {
      // A conflict the store says to retry is contention on the thread's writes: for the client, a busy thread.
      const code: ErrorCode = error.code === 'conflict' && error.retryable ? 'thread_busy' : error.code;
      const wireCode = WIRE_CODE[code] ?? code;
      let text = this.textFor(code);
      if (WITH_DETAIL.has(code)) text = `${text} (${error.message})`;
      return { error: text, code: wireCode, retryable: RETRYABLE_CODES.has(wireCode) };
    }
    const correlationId = logUnhandledError(logger, error);
    return { error: `${this.textFor('internal')} (${correlationId})`, code: 'internal', retryable: false };
  }

  private textFor(code: ErrorCode): string {
    const own = USER_ERROR_MESSAGES[code as ServiceErrorCode];
    if (own) return own[this.locale];
    return (LLM_ERROR_MESSAGES[code as LlmErrorCode] ?? USER_ERROR_MESSAGES.internal)[this.locale];
  }
}

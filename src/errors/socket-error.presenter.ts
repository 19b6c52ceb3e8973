import type { Locale } from '../config/app-config';
import { Logger } from '../observability/logger';
import { AppError } from './app-error';
import { ErrorCode, RETRYABLE_CODES } from './error-code';
import { LLM_ERROR_MESSAGES } from './llm-error.messages';
import { logUnhandledError } from './unhandled-error.logger';
import { USER_ERROR_MESSAGES } from './user-error.messages';

/** The fields of `ai:error` besides its `_id`. */
export interface SocketErrorFields {
  /** User-facing text in the AI_LOCALE language. */
  error: string;
  code: ErrorCode;
  retryable: boolean;
}

/**
 * Internal codes outside the protocol's list, and the listed code a socket client gets instead
 * (HTTP keeps the precise code: 409 conflict, 409 read_only_store, 503 store_unavailable).
 */
const WIRE_CODE: Partial<Record<ErrorCode, ErrorCode>> = {
  conflict: 'bad_request',
  read_only_store: 'forbidden',
  store_unavailable: 'server_error',
};

/** The user text of each code: the service's own table, then the LLM error classifier's. */
const USER_TEXTS: Partial<Record<ErrorCode, Record<Locale, string>>> = {
  ...LLM_ERROR_MESSAGES,
  ...USER_ERROR_MESSAGES,
};

/** Codes whose user text gets the technical detail appended (the client developer needs it). */
const WITH_DETAIL: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['bad_request', 'payload_too_large']);

const logger = new Logger('gateway');

/**
 * Turns anything a socket request failed with into the `ai:error` fields: a protocol code, its
 * retryable flag and a user-facing text in the AI_LOCALE language — the error's own user message
 * when it has one (LLM failures and budgets, already localized), the message tables otherwise.
 * Unknown errors become `internal` with a correlation id, logged once with the stack. Pure: no Nest.
 * Its HTTP counterpart is toErrorBody (to-error-body.ts), which keeps the developer-oriented message.
 */
export class SocketErrorPresenter {
  constructor(private readonly locale: Locale) {}

  present(error: unknown): SocketErrorFields {
    // `retryable` follows the code sent, whatever the error says: a client decides on the pair.
    if (error instanceof AppError && error.userMessage !== undefined) {
      const wireCode = WIRE_CODE[error.code] ?? error.code;
      return { error: error.userMessage, code: wireCode, retryable: RETRYABLE_CODES.has(wireCode) };
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
    return (USER_TEXTS[code] ?? USER_ERROR_MESSAGES.internal)[this.locale];
  }
}

import { ERROR_HTTP_STATUS, ErrorCode, RETRYABLE_CODES } from './error-code';

/**
 * A domain error carrying one of the protocol's codes (ErrorCode). Thrown anywhere; mapped once to the HTTP error shape
 * by HttpErrorFilter and to `ai:error` by the Socket.IO gateway.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly retryable: boolean;
  /**
   * The text for the end user, already in the AI_LOCALE language, when whoever raised the error
   * wrote one (the LLM error classifier, the budgets); otherwise a transport shows its own text for
   * the code (SocketErrorPresenter).
   */
  readonly userMessage?: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    options?: { statusCode?: number; retryable?: boolean; cause?: unknown; userMessage?: string },
  ) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'AppError';
    this.statusCode = options?.statusCode ?? ERROR_HTTP_STATUS[code];
    this.retryable = options?.retryable ?? RETRYABLE_CODES.has(code);
    if (options?.userMessage !== undefined) this.userMessage = options.userMessage;
  }

  static badRequest(message: string, details?: unknown): AppError {
    return new AppError('bad_request', message, details);
  }

  static notFound(message: string): AppError {
    return new AppError('not_found', message);
  }

  static forbidden(message: string): AppError {
    return new AppError('forbidden', message);
  }

  static conflict(message: string, details?: unknown): AppError {
    return new AppError('conflict', message, details);
  }
}

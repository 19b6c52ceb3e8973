import { HttpException } from '@nestjs/common';
import { Logger } from '../observability/logger';
import { AppError } from './app-error';
import { typedBodyErrorBody } from './body-parser-error.mapper';
import { ErrorBody } from './error-body';
import { ErrorCode, RETRYABLE_CODES } from './error-code';
import { logUnhandledError } from './unhandled-error.logger';

const logger = new Logger('errors');

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limit',
};

function withRetryable(body: Omit<ErrorBody, 'retryable'>): ErrorBody {
  return RETRYABLE_CODES.has(body.code) ? { ...body, retryable: true } : body;
}

/**
 * Maps any thrown value to the error shape (ErrorBody). Unknown errors become `internal` with a
 * correlation id that is logged once with the stack, so the answer leaks nothing.
 */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof AppError) {
    const body: ErrorBody = { statusCode: error.statusCode, code: error.code, message: error.message };
    if (error.details !== undefined) body.details = error.details;
    if (error.retryable) body.retryable = true;
    return body;
  }
  const bodyError = typedBodyErrorBody(error);
  if (bodyError) return bodyError;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal' : 'bad_request');
    return withRetryable({ statusCode: status, code, message: error.message });
  }
  const correlationId = logUnhandledError(logger, error);
  return { statusCode: 500, code: 'internal', message: `Internal error (correlation id ${correlationId})` };
}

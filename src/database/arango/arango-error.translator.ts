import { HttpError, isArangoError, isNetworkError, isSystemError } from 'arangojs/errors';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';

const logger = new Logger('arango-store');

/** ArangoDB error numbers this service reacts to (https://docs.arangodb.com/stable/develop/error-codes/). */
const ERROR_NUM = {
  forbidden: 11,
  lockTimeout: 18,
  writeConflict: 1200,
  documentNotFound: 1202,
  dataSourceNotFound: 1203,
  uniqueConstraintViolated: 1210,
  databaseNotFound: 1228,
  transactionNotFound: 1655,
} as const;

/** Error numbers meaning "the store cannot serve right now", whatever the HTTP status says. */
const UNAVAILABLE_ERROR_NUMS: ReadonlySet<number> = new Set([
  ERROR_NUM.forbidden,
  ERROR_NUM.lockTimeout,
  ERROR_NUM.dataSourceNotFound,
  ERROR_NUM.databaseNotFound,
  ERROR_NUM.transactionNotFound,
]);

/**
 * Maps what arangojs throws to the service's errors. A server that cannot be reached or answers 5xx,
 * refused credentials or a missing database/collection → `store_unavailable` (503, retryable): the
 * request fails cleanly and the process keeps running. A unique-key violation → `conflict`; a
 * write-write conflict → `conflict` marked retryable; anything else (a bug, e.g. an AQL parse error)
 * is returned unchanged and becomes `internal`. Details are logged, never sent (they may name hosts).
 */
export function toStoreError(error: unknown, operation: string): unknown {
  if (error instanceof AppError) return error;
  if (isArangoError(error)) {
    if (error.errorNum === ERROR_NUM.uniqueConstraintViolated) {
      return AppError.conflict('A node, edge or config with this key already exists');
    }
    if (error.errorNum === ERROR_NUM.writeConflict) {
      return new AppError('conflict', 'The graph was changed concurrently; retry', undefined, { retryable: true, cause: error });
    }
    if (error.errorNum === ERROR_NUM.documentNotFound) {
      return AppError.notFound('The document was not found in the graph store');
    }
  }
  const unavailable = unavailabilityOf(error);
  if (!unavailable) return error;
  logger.warn('arango_unavailable', {
    operation,
    errorName: error instanceof Error ? error.name : typeof error,
    errorMessage: error instanceof Error ? error.message : String(error),
    ...unavailable,
  });
  return new AppError('store_unavailable', 'The graph store is unavailable; retry later', undefined, { cause: error });
}

/** True for failures that mean "no usable connection" (start-up retries, health). */
export function isStoreUnavailable(error: unknown): boolean {
  return unavailabilityOf(error) !== null;
}

/** What makes the error an unavailability (fields for the log), or null when it is something else. */
function unavailabilityOf(error: unknown): Record<string, unknown> | null {
  if (isArangoError(error)) {
    const status = error.code ?? 0;
    const unavailable = UNAVAILABLE_ERROR_NUMS.has(error.errorNum) || status >= 500 || status === 401;
    return unavailable ? { errorNum: error.errorNum, httpStatus: status } : null;
  }
  if (error instanceof HttpError) {
    return error.code >= 500 || error.code === 401 || error.code === 403 ? { httpStatus: error.code } : null;
  }
  if (isNetworkError(error) || isSystemError(error) || hasConnectionCause(error)) return {};
  return null;
}

/** Node's fetch throws `TypeError: fetch failed` with the system error as its cause. */
function hasConnectionCause(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause === undefined || cause === error) return false;
  return isSystemError(cause) || isNetworkError(cause) || hasConnectionCause(cause, depth + 1);
}

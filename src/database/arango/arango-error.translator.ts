import { randomUUID } from 'node:crypto';
import { HttpError, isArangoError, isNetworkError, isSystemError } from 'arangojs/errors';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';

const logger = new Logger('arango-store');

/** ArangoDB error numbers this service reacts to (https://docs.arangodb.com/stable/develop/error-codes/). */
export const ARANGO_ERROR_NUM = {
  /** ERROR_FORBIDDEN: the user lacks a permission (usually with HTTP 401 or 403). */
  forbidden: 11,
  lockTimeout: 18,
  deadlock: 29,
  /** A write-write conflict, or a `_rev` precondition that no longer holds (`ignoreRevs: false`). */
  writeConflict: 1200,
  documentNotFound: 1202,
  dataSourceNotFound: 1203,
  uniqueConstraintViolated: 1210,
  /** ERROR_ARANGO_DOCUMENT_KEY_BAD: a `_key` outside ArangoDB's characters or over 254 bytes. */
  illegalDocumentKey: 1221,
  databaseNotFound: 1228,
  transactionNotFound: 1655,
} as const;

/**
 * HTTP statuses meaning "no usable server right now": ArangoDB's 503 (starting, shutting down, no
 * leader), and a gateway in front of it answering that the server behind is unreachable (502) or
 * silent (504), which is a network failure one hop away.
 */
const UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * Maps what arangojs throws to the service's errors:
 *  - no usable server (network errors, 503; a gateway's 502/504) → `store_unavailable` (503, retryable):
 *    the request fails cleanly, the process keeps running, a retry later succeeds;
 *  - refused credentials or permissions (HTTP 401/403, error 11) and a database or collection that is
 *    missing (1228, 1203) → a configuration error: `internal` (500, not retryable) with a correlation id,
 *    logged once at error level with what to fix; retrying cannot help;
 *  - an illegal document key (1221) → `bad_request`; a unique-key violation (1210) → `conflict`;
 *    a write-write conflict (1200), a lock timeout (18) or a stream transaction the server dropped (1655)
 *    → `conflict` marked retryable (nothing was written); a missing document (1202) → `not_found`;
 *  - anything else, server 500s included (a bug, an AQL error, a resource limit) is returned
 *    unchanged and becomes `internal` (not retryable) where it is answered.
 * Details are logged, never sent (they may name hosts).
 */
export function toStoreError(error: unknown, operation: string): unknown {
  if (error instanceof AppError) return error;
  if (isArangoError(error)) {
    switch (error.errorNum) {
      case ARANGO_ERROR_NUM.uniqueConstraintViolated:
        return AppError.conflict('A node, edge or config with this key already exists');
      case ARANGO_ERROR_NUM.writeConflict:
      case ARANGO_ERROR_NUM.lockTimeout:
      case ARANGO_ERROR_NUM.transactionNotFound:
        return new AppError(
          'conflict',
          'The store was busy with a concurrent change and wrote nothing; retry',
          undefined,
          { retryable: true, cause: error },
        );
      case ARANGO_ERROR_NUM.documentNotFound:
        return AppError.notFound('The document was not found in the store');
      case ARANGO_ERROR_NUM.illegalDocumentKey:
        return AppError.badRequest(
          "A key cannot be stored in ArangoDB: keys use letters, digits and _-.@()+,=;$!*'%: only, at most 254 bytes (docs/graph-store.md)",
        );
    }
  }
  if (isPermissionDenied(error) || isMissingDataSource(error)) return misconfigured(error, operation);
  if (!isStoreUnavailable(error)) return error;
  logger.warn('arango_unavailable', { operation, ...describeFailure(error) });
  return new AppError('store_unavailable', 'The store is unavailable; retry later', undefined, { cause: error });
}

/** True for failures that mean "no usable connection now, maybe later": network errors and 503 (start-up retries, health). */
export function isStoreUnavailable(error: unknown): boolean {
  if (isArangoError(error) || error instanceof HttpError) return UNAVAILABLE_STATUSES.has(error.code ?? 0);
  return isNetworkError(error) || isSystemError(error) || hasConnectionCause(error);
}

/** Credentials or permissions refused: HTTP 401 or 403, or ArangoDB's ERROR_FORBIDDEN (11). */
export function isPermissionDenied(error: unknown): boolean {
  if (isArangoError(error))
    return error.errorNum === ARANGO_ERROR_NUM.forbidden || error.code === 401 || error.code === 403;
  return error instanceof HttpError && (error.code === 401 || error.code === 403);
}

function isMissingDataSource(error: unknown): boolean {
  return (
    isArangoError(error) &&
    (error.errorNum === ARANGO_ERROR_NUM.databaseNotFound || error.errorNum === ARANGO_ERROR_NUM.dataSourceNotFound)
  );
}

function misconfigured(error: unknown, operation: string): AppError {
  const correlationId = randomUUID();
  const hint = isPermissionDenied(error)
    ? 'the ArangoDB user (ARANGO_USER) lacks a permission on the database (ARANGO_DB): grant it read-write access'
    : 'the database or a collection is missing (dropped while the service ran?): restart the service to recreate it';
  logger.error('arango_misconfigured', { operation, correlationId, hint, ...describeFailure(error) });
  return new AppError(
    'internal',
    `The store refused this request because of its configuration; an operator must fix it (correlation id ${correlationId})`,
    undefined,
    {
      cause: error,
    },
  );
}

function describeFailure(error: unknown): Record<string, unknown> {
  return {
    errorName: error instanceof Error ? error.name : typeof error,
    errorMessage: error instanceof Error ? error.message : String(error),
    ...(isArangoError(error) ? { errorNum: error.errorNum, httpStatus: error.code } : {}),
    ...(error instanceof HttpError ? { httpStatus: error.code } : {}),
  };
}

/** Node's fetch throws `TypeError: fetch failed` with the system error as its cause. */
function hasConnectionCause(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause === undefined || cause === error) return false;
  return isSystemError(cause) || isNetworkError(cause) || hasConnectionCause(cause, depth + 1);
}

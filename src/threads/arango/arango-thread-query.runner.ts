import { Database } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { isArangoError } from 'arangojs/errors';
import { ARANGO_ERROR_NUM } from '../../database/arango/arango-error.translator';
import { ArangoQueryExecutor, TransactionStep } from '../../database/arango/arango-query.executor';
import { TransactionCollectionOptions } from 'arangojs/transactions';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';

const logger = new Logger('arango-threads');

/** A query that failed with one of these changed nothing and may simply run again. */
const RUN_AGAIN_ERRORS: ReadonlySet<number> = new Set([
  ARANGO_ERROR_NUM.deadlock,
  ARANGO_ERROR_NUM.writeConflict,
  ARANGO_ERROR_NUM.uniqueConstraintViolated,
]);

export interface WriteConflictRetryPolicy {
  attempts: number;
  /** The pause before attempt n+1 is a random time up to `baseDelayMs * 2^n`. */
  baseDelayMs: number;
}

/** 8 attempts, pauses up to 4, 8, 16 … ms: a lost race is retried within a fraction of a second. */
export const DEFAULT_WRITE_CONFLICT_RETRY: WriteConflictRetryPolicy = { attempts: 8, baseDelayMs: 4 };

/** Returned by an attempt whose own check says another writer is in the way: run it again. */
export const RUN_AGAIN = Symbol('run again');

/** Runs one AQL query of an attempt; driver errors reach the attempt untranslated. */
export type AttemptQuery = <T>(query: AqlQuery) => Promise<T[]>;

export function isArangoErrorNum(error: unknown, errorNum: number): boolean {
  return isArangoError(error) && error.errorNum === errorNum;
}

/**
 * Runs the thread repository's AQL through the shared ArangoQueryExecutor: failures become the
 * service's errors (src/database/arango/arango-error.translator.ts: an unreachable server →
 * `store_unavailable`, 503, retryable; never a crash). Writes that lose a race (ArangoDB reports 1200
 * conflict, or 1210 when two inserts of one key meet) changed nothing, so they run again after a short
 * random pause, and see the winner's write.
 */
export class ArangoThreadQueryRunner {
  private readonly executor: ArangoQueryExecutor;

  constructor(
    db: Database,
    private readonly retry: WriteConflictRetryPolicy = DEFAULT_WRITE_CONFLICT_RETRY,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    this.executor = new ArangoQueryExecutor(db);
  }

  /** One query, all its results; failures translated. */
  all<T>(operation: string, query: AqlQuery): Promise<T[]> {
    return this.executor.all<T>(query, operation);
  }

  /** Runs one query without translating its failure (for the caller's own handling); see translate(). */
  query<T>(query: AqlQuery): Promise<T[]> {
    return this.executor.run<T>(query);
  }

  translate(error: unknown, operation: string): unknown {
    return this.executor.translate(error, operation);
  }

  /** A stream transaction (ArangoQueryExecutor.transaction): its steps commit together or not at all. */
  transaction<T>(
    collections: TransactionCollectionOptions,
    operation: string,
    work: (step: TransactionStep) => Promise<T>,
  ): Promise<T> {
    return this.executor.transaction(collections, operation, work);
  }

  /**
   * Runs `attempt` until it returns a result, again while it fails with a lost race or returns
   * RUN_AGAIN, up to the policy's attempts. Other failures are translated at once. When the attempts
   * run out, `exhausted()` answers if given; otherwise a retryable `conflict` (409) is thrown.
   */
  async withRetries<T>(
    operation: string,
    attempt: (query: AttemptQuery) => Promise<T | typeof RUN_AGAIN>,
    exhausted?: () => T,
  ): Promise<T> {
    for (let index = 0; index < this.retry.attempts; index += 1) {
      if (index > 0) await this.sleep(Math.random() * this.retry.baseDelayMs * 2 ** (index - 1));
      try {
        const result = await attempt((query) => this.query(query));
        if (result !== RUN_AGAIN) return result;
      } catch (error) {
        if (!isArangoError(error) || !RUN_AGAIN_ERRORS.has(error.errorNum)) throw this.translate(error, operation);
      }
    }
    logger.warn('arango_write_contention', { operation, attempts: this.retry.attempts });
    if (exhausted) return exhausted();
    throw new AppError('conflict', 'The thread store is busy with concurrent writes; retry', undefined, {
      retryable: true,
    });
  }
}

import { Database } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { TransactionCollectionOptions } from 'arangojs/transactions';
import { toStoreError } from './arango-error.translator';

/** Runs one AQL query as a step of the enclosing stream transaction and returns all its results. */
export type TransactionStep = <T = unknown>(query: AqlQuery) => Promise<T[]>;

/**
 * Runs AQL against the database for every adapter on ArangoDB (graph store, thread repository) and
 * turns driver failures into the service's errors (arango-error.translator.ts), so an unreachable
 * server is a 503 for the caller, never a crash.
 */
export class ArangoQueryExecutor {
  constructor(private readonly db: Database) {}

  /** One query, all its results; failures translated. */
  async all<T>(query: AqlQuery, operation: string): Promise<T[]> {
    try {
      return await this.run<T>(query);
    } catch (error) {
      throw toStoreError(error, operation);
    }
  }

  async first<T>(query: AqlQuery, operation: string): Promise<T | undefined> {
    const [result] = await this.all<T>(query, operation);
    return result;
  }

  /**
   * One query, all its results, driver failures untranslated: for callers that react to particular
   * ArangoDB error numbers (a lost write race runs again) and translate the rest with translate().
   */
  async run<T>(query: AqlQuery): Promise<T[]> {
    const cursor = await this.db.query<T>(query);
    return cursor.all();
  }

  translate(error: unknown, operation: string): unknown {
    return toStoreError(error, operation);
  }

  /**
   * A stream transaction: every step commits together or not at all (aborted on any error, including
   * a validation error thrown by `work` between steps). Steps return small results (one state document
   * or nothing), so each fits in the first cursor batch, which is fetched inside the transaction.
   */
  async transaction<T>(
    collections: TransactionCollectionOptions,
    operation: string,
    work: (step: TransactionStep) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.db.withTransaction(collections, (step) =>
        work(async <R>(query: AqlQuery) => {
          const cursor = await step(() => this.db.query<R>(query));
          return cursor.all();
        }),
      );
    } catch (error) {
      throw toStoreError(error, operation);
    }
  }
}

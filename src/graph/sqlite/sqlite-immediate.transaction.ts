import type { Database } from 'better-sqlite3';
import { AppError } from '../../errors/app-error';

/**
 * Runs `work` in one BEGIN IMMEDIATE transaction (the write lock is taken before anything is read,
 * so another process cannot slip a write between a check and a write). A lock held by another
 * process past busy_timeout is a retryable store_unavailable.
 */
export function inImmediateTransaction<T>(db: Database, work: () => T): T {
  try {
    return db.transaction(work).immediate();
  } catch (error) {
    if (isBusyError(error))
      throw new AppError('store_unavailable', 'The embedded store is busy; retry shortly', undefined, { cause: error });
    throw error;
  }
}

function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED')
  );
}

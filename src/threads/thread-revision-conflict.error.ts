import { AppError } from '../errors/app-error';

/** A commit raced another writer: the stored revision moved on. Nothing was written; the thread stays valid. */
export class ThreadRevisionConflictError extends Error {
  constructor(
    readonly threadId: string,
    readonly expectedRevision: number,
    readonly actualRevision: number,
  ) {
    super(`Thread ${threadId} is at revision ${actualRevision}, expected ${expectedRevision}`);
    this.name = 'ThreadRevisionConflictError';
  }
}

/** The thread_busy ThreadService.commit throws for a revision conflict (re-read and replay may help). */
export function isRevisionConflict(error: unknown): boolean {
  return (
    error instanceof AppError && error.code === 'thread_busy' && error.cause instanceof ThreadRevisionConflictError
  );
}

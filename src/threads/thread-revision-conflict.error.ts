/** A commit raced another writer: the stored revision moved on. The run stops; the thread stays valid. */
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

/** A commit would store a malformed conversation (a bug in the caller): nothing was written. */
export class ThreadCommitValidationError extends Error {
  constructor(
    readonly threadId: string,
    readonly problem: string,
  ) {
    super(`Refused commit to thread ${threadId}: ${problem}`);
    this.name = 'ThreadCommitValidationError';
  }
}

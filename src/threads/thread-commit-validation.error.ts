import { AppError } from '../errors/app-error';

/**
 * A commit would store a malformed conversation: nothing was
 * written, the thread keeps its earlier rounds. A bug of whoever built the round, so `internal`; the
 * message names the problem (never content), for the log and the answer.
 */
export class ThreadCommitValidationError extends AppError {
  constructor(
    readonly threadId: string,
    readonly problem: string,
  ) {
    super(
      'internal',
      `Refused an invalid round for thread ${threadId}: ${problem}. Nothing of it was stored; the thread keeps its earlier rounds.`,
      {
        threadId,
      },
    );
    this.name = 'ThreadCommitValidationError';
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import type { Principal } from '../../auth/principal';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { DEFAULT_RETRY_BACKOFF, RetryBackoffOptions, retryDelayMs } from '../../providers/retry-backoff';
import { isRevisionConflict } from '../../threads/thread-revision-conflict.error';
import type { RunEndRecord } from '../../threads/thread.repository';
import { ThreadRoundCommit, ThreadService } from '../../threads/thread.service';
import type { ThreadRecord } from '../../threads/thread.types';

/** Replays of a commit after a revision conflict, before the run fails. */
export const MAX_COMMIT_REPLAYS = 3;
/** 25 ms, then 50, then 100 (each with equal jitter): a conflicting writer under the lease is short-lived. */
export const COMMIT_REPLAY_BACKOFF: RetryBackoffOptions = {
  ...DEFAULT_RETRY_BACKOFF,
  baseDelayMs: 25,
  maxDelayMs: 400,
};

/** What became of a run's commit. */
export interface RoundCommitReceipt {
  record: ThreadRecord;
  /** False when the operation id was already applied (an idempotent replay): nothing was written twice. */
  applied: boolean;
  /** Times it was re-read and replayed after a revision conflict. */
  replays: number;
}

/** Told how each conflict ended (metrics). */
export interface CommitConflictObserver {
  conflict(outcome: 'replayed' | 'failed' | 'lease_lost'): void;
}

/** The run holding the thread, as the replayer needs it. */
export interface CommitHold {
  principal: Principal;
  /** Checks with the store that the run still holds the thread's lease (renewing it). */
  confirmLease(): Promise<boolean>;
}

const logger = new Logger('agent');

/**
 * The run skeleton's commit path: a round commit that meets a revision
 * conflict (another writer moved the thread on since the run read it) is re-read and replayed on the
 * fresh record with the same operation id, up to MAX_COMMIT_REPLAYS times with exponential backoff;
 * then the run fails with thread_busy. Before each replay the run's lease is confirmed with the store:
 * a lease held elsewhere means another run owns the thread, so the commit fails at once (thread_busy),
 * never writing over that run. A replay is validated like any commit against what it re-read, so it
 * can only land where the round still makes sense.
 */
export class RoundCommitReplayer {
  constructor(
    private readonly threads: ThreadService,
    private readonly options: {
      maxReplays?: number;
      backoff?: RetryBackoffOptions;
      observer?: CommitConflictObserver;
    } = {},
  ) {}

  /** `end`: the run's last round, which ends it in the same write (ThreadService.commitRound), replays included. */
  async commit(
    thread: ThreadRecord,
    round: ThreadRoundCommit,
    hold: CommitHold,
    end?: RunEndRecord,
  ): Promise<RoundCommitReceipt> {
    const maxReplays = this.options.maxReplays ?? MAX_COMMIT_REPLAYS;
    let current = thread;
    for (let replays = 0; ; replays += 1) {
      try {
        const { record, applied } = await this.threads.commitRound(current, round, end);
        if (replays > 0) {
          logger.info('thread_commit_replayed_after_conflict', {
            threadId: thread.threadId,
            operationId: round.operationId,
            replays,
            applied,
          });
          this.options.observer?.conflict('replayed');
        }
        return { record, applied, replays };
      } catch (error) {
        if (!isRevisionConflict(error)) throw error;
        if (!(await hold.confirmLease())) {
          logger.warn('thread_commit_conflict', {
            threadId: thread.threadId,
            operationId: round.operationId,
            replays,
            outcome: 'lease_lost',
          });
          this.options.observer?.conflict('lease_lost');
          throw new AppError(
            'thread_busy',
            'Another request holds this thread',
            { threadId: thread.threadId },
            { cause: error },
          );
        }
        if (replays >= maxReplays) {
          logger.warn('thread_commit_conflict', {
            threadId: thread.threadId,
            operationId: round.operationId,
            replays,
            outcome: 'failed',
          });
          this.options.observer?.conflict('failed');
          throw error;
        }
        await sleep(retryDelayMs(replays, null, this.options.backoff ?? COMMIT_REPLAY_BACKOFF) ?? 0);
        current = await this.threads.load(hold.principal, thread.threadId);
      }
    }
  }
}

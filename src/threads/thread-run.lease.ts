import { AppError } from '../errors/app-error';
import { Logger } from '../observability/logger';
import type { RunUsageRecord, ThreadRepository } from './thread.repository';

const logger = new Logger('threads');

/**
 * The right to run on one thread (one run per thread at a time, on any instance), held from
 * ThreadService.acquireRun until release(). Renewed every third of its time to live while held, so a
 * long run keeps it and a crashed process loses it after at most `ttlMs`.
 *
 * `signal` aborts when the lease is lost (someone took it over after it expired, or the thread was
 * deleted): the run should stop, since its next commit would conflict anyway.
 */
export class ThreadRunLease {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private released = false;
  /** Moves when a write ending the hold starts (endWith): a renewal begun before it cannot take its end for a loss. */
  private endings = 0;
  private lastRenewedAt: number;

  constructor(
    private readonly repository: ThreadRepository,
    readonly threadId: string,
    readonly holder: string,
    private readonly ttlMs: number,
    private readonly onEnd: (lease: ThreadRunLease) => void = () => undefined,
    private readonly clock: () => number = Date.now,
  ) {
    this.lastRenewedAt = clock();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get lost(): boolean {
    return this.controller.signal.aborted;
  }

  /** Starts the periodic renewal (called by ThreadService once the lease is acquired). */
  start(): void {
    if (this.timer || this.released) return;
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.timer.unref(); // never keeps the process alive on its own
  }

  /** Renews now; false when the lease is lost. Called by the timer; exposed for tests. */
  async renew(): Promise<boolean> {
    if (this.released || this.lost) return false;
    const now = this.clock();
    const endings = this.endings;
    try {
      if (await this.repository.renewLease(this.threadId, this.holder, this.ttlMs, now)) {
        this.lastRenewedAt = now;
        return true;
      }
      // The run's last round released the lease while this renewal was on its way: nothing was lost.
      if (this.released || endings !== this.endings) return false;
      this.lose('taken_over');
    } catch (error) {
      // A store hiccup: keep trying on the next tick until the lease would have expired anyway.
      logger.warn('thread_lease_renew_failed', { threadId: this.threadId, error: (error as Error).message });
      if (now - this.lastRenewedAt >= this.ttlMs) this.lose('expired');
    }
    return false;
  }

  /**
   * Ends the run's hold on the thread; with `usage`, the run's usage is recorded in the same write
   * (ThreadRepository.releaseLease). Idempotent; never throws (a failed release just expires).
   * Resolves whether `usage` was recorded: false when the write failed or the lease was released
   * already (the caller then records it on its own).
   */
  async release(usage?: RunUsageRecord): Promise<boolean> {
    if (this.released) return usage === undefined;
    this.released = true;
    this.stopTimer();
    this.onEnd(this);
    try {
      await this.repository.releaseLease(this.threadId, this.holder, usage);
      return true;
    } catch (error) {
      logger.warn('thread_lease_release_failed', { threadId: this.threadId, error: (error as Error).message });
      return usage === undefined;
    }
  }

  /**
   * Ends the hold with `write`, a store write that releases the lease itself (a run's last round committed with
   * its end: ThreadService.commitRound). Renewal stops while it runs; once it succeeds the lease is released as
   * release() leaves it; when it throws, the lease is held as before (renewed again) and the error rethrown.
   */
  async endWith<T>(write: (holder: string) => Promise<T>): Promise<T> {
    if (this.released)
      throw new AppError('internal', 'The run lease was released already', { threadId: this.threadId });
    this.stopTimer();
    this.endings += 1;
    try {
      const result = await write(this.holder);
      this.released = true;
      this.onEnd(this);
      return result;
    } catch (error) {
      if (!this.released && !this.lost) this.start();
      throw error;
    }
  }

  private lose(reason: 'taken_over' | 'expired'): void {
    this.stopTimer();
    logger.warn('thread_lease_lost', { threadId: this.threadId, reason });
    this.controller.abort(
      new AppError('thread_busy', 'This request lost its hold on the thread', { threadId: this.threadId }),
    );
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

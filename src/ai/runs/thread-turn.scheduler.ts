import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import type { ThreadRunLease } from '../../threads/thread-run.lease';
import type { ThreadService } from '../../threads/thread.service';
import type { MultitaskStrategy } from '../multitask-strategy';
import type { RunEndedListener, ThreadStopReason } from './active-run.registry';
import type { ThreadTurnQueue } from './thread-turn.queue';

/** What the scheduler needs of the runs: stop the one holding a thread (on any instance), hear of local ends. */
export interface ThreadRunStopper {
  stopThread(threadId: string, reason: ThreadStopReason): Promise<boolean>;
  onRunEnded(listener: RunEndedListener): () => void;
}

export interface ThreadTurnSchedulerOptions {
  /** AI_ENQUEUE_MAX: enqueued messages that may wait per thread. */
  maxWaiting: number;
  /** How often a waiting message looks again (a run on another instance ends unheard of). */
  pollMs?: number;
  /** Least time between two stops sent by one waiting message (interrupt, rollback) to the run holding the thread. */
  restopMs?: number;
}

const DEFAULT_POLL_MS = 100;
const DEFAULT_RESTOP_MS = 1_000;

const logger = new Logger('runs');

/**
 * When a message sent with a multitaskStrategy other than `reject` gets the thread (docs/protocol.md §9.7):
 * it joins the thread's line (ThreadTurnQueue, shared by the instances with REDIS_URL), `enqueue` at the back (a
 * full line is rate_limited), `interrupt` and `rollback` at the front after stopping the run holding the thread,
 * wherever it runs (RunControl: `superseded` keeps its text, `rollback` makes it discard its turn); then, once first
 * in line, it takes the thread's lease as soon as it is free. Only the first of the line tries, so enqueued messages
 * run in the order they came; a front that finds the thread held again (by an earlier front that got it meanwhile)
 * stops that run too. A run of a dead instance holds the thread until its lease expires (THREAD_LEASE_MS).
 *
 * A message waits outside its setup slot, holding nothing but its place in line; stopped while waiting (its client
 * interrupted it or went away) it leaves the line and `take` resolves null: nothing of it was stored.
 */
export class ThreadTurnScheduler {
  private readonly pollMs: number;
  private readonly restopMs: number;
  /** Waiting messages of this instance, by thread: woken when a run of this instance on their thread ends. */
  private readonly sleepers = new Map<string, Set<() => void>>();

  constructor(
    private readonly threads: Pick<ThreadService, 'tryAcquireRun'>,
    private readonly queue: ThreadTurnQueue,
    private readonly runs: ThreadRunStopper,
    private readonly options: ThreadTurnSchedulerOptions,
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.restopMs = options.restopMs ?? DEFAULT_RESTOP_MS;
    runs.onRunEnded((threadId) => this.wake(threadId));
  }

  /**
   * The thread's lease for a message sent with `strategy`; null when `signal` stopped it first. `queued` is called
   * once, when the thread is not free at the first try (the message waits). Throws rate_limited when the line already
   * holds AI_ENQUEUE_MAX enqueued messages. The caller checked that the thread is its principal's: a stranger must get
   * not_found, never stop anything.
   */
  async take(
    threadId: string,
    strategy: Exclude<MultitaskStrategy, 'reject'>,
    signal: AbortSignal,
    queued: () => void = () => undefined,
  ): Promise<ThreadRunLease | null> {
    const place = strategy === 'enqueue' ? 'back' : 'front';
    const ticket = await this.queue.join(threadId, place, this.options.maxWaiting);
    if (!ticket) {
      logger.info('thread_queue_full', { threadId, maxWaiting: this.options.maxWaiting });
      throw new AppError('rate_limited', 'Too many messages wait for this thread', {
        threadId,
        maxWaiting: this.options.maxWaiting,
      });
    }
    const stopReason: ThreadStopReason | null =
      strategy === 'interrupt' ? 'superseded' : strategy === 'rollback' ? 'rollback' : null;
    let lastStop = -Infinity;
    let told = false;
    try {
      for (;;) {
        if (signal.aborted) return null;
        if (await ticket.isFirst()) {
          const lease = await this.threads.tryAcquireRun(threadId);
          if (lease) {
            if (!signal.aborted) return lease;
            await lease.release();
            return null;
          }
          // Stopped again after restopMs: a front that got the thread meanwhile, or a stop that reached no instance.
          if (stopReason && Date.now() - lastStop >= this.restopMs) {
            lastStop = Date.now();
            if (await this.runs.stopThread(threadId, stopReason))
              logger.info('thread_run_stopped_for_message', { threadId, strategy });
          }
        }
        if (!told) {
          told = true;
          queued();
        }
        await this.sleep(threadId, signal);
      }
    } finally {
      await ticket.leave();
    }
  }

  /** Until a run of this instance on the thread ends, `pollMs` passes, or `signal` fires. */
  private sleep(threadId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let sleepers = this.sleepers.get(threadId);
      if (!sleepers) {
        sleepers = new Set();
        this.sleepers.set(threadId, sleepers);
      }
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const current = this.sleepers.get(threadId);
        current?.delete(done);
        if (current?.size === 0) this.sleepers.delete(threadId);
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      signal.addEventListener('abort', done, { once: true });
      sleepers.add(done);
    });
  }

  private wake(threadId: string): void {
    for (const done of [...(this.sleepers.get(threadId) ?? [])]) done();
  }
}

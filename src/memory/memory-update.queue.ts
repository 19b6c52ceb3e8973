import { performance } from 'node:perf_hooks';
import type { Principal } from '../auth/principal';
import { Logger } from '../observability/logger';
import type { MemoryUpdateReport, RecordedTurns } from './thread-memory.writer';

export type MemoryUpdate = (
  principal: Principal,
  threadId: string,
  signal: AbortSignal,
  recorded?: Promise<RecordedTurns | null>,
) => Promise<MemoryUpdateReport>;

export interface MemoryUpdateQueueOptions {
  /** Threads updated at the same time. Default 2. */
  concurrency?: number;
  /** Pauses before each retry of a failed update; after the last one the update waits for the thread's next turn. */
  retryDelaysMs?: readonly number[];
  /** What updates in flight get at shutdown (onModuleDestroy) before they are aborted. Default 5 s. */
  shutdownTimeoutMs?: number;
  /** How long no run must have been in progress before updates start. Default 20 ms. */
  idleMs?: number;
  /** The longest an update waits for the service to be idle; past it, it runs among the runs. Default 5 s. */
  maxDeferMs?: number;
}

/** 5 s, 30 s, 2 min, 10 min: a provider outage of a few minutes loses nothing. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000];

interface Entry {
  principal: Principal;
  threadId: string;
  /** Failed attempts so far. */
  failures: number;
  /** performance.now() when it was first queued (the deferral's clock). */
  queuedAt: number;
  /**
   * What the thread's turn recording read and wrote as its run settled, handed to the update (the latest one queued);
   * dropped when the update runs again (a retry, a request during an update), which then reads the thread itself.
   */
  recorded?: Promise<RecordedTurns | null>;
}

const logger = new Logger('memory');

/**
 * The background side of conversation memory: after a run, its thread is queued here and updated
 * (ThreadMemoryWriter) without holding up anything the user waits for. Requests for one thread
 * coalesce (one pending entry; a request during an update runs it once more after it). A failed
 * update is logged and retried after DEFAULT_RETRY_DELAYS_MS; after the last retry it is logged as an
 * error and waits for the thread's next turn, which updates everything missing (updates are derived
 * from the stored thread, so a late one catches up fully). Never throws to its callers.
 *
 * Updates yield to runs: they start once no run has been in progress for `idleMs` (runStarted /
 * runSettled), or, under a load that never pauses, once they have waited `maxDeferMs`; so a
 * conversation's setup and stream never wait behind the previous answer's update.
 */
export class MemoryUpdateQueue {
  private readonly pending = new Map<string, Entry>();
  /** Pending updates whose thread has a run again: they start without waiting for an idle service. */
  private readonly due = new Map<string, Entry>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly shutdownTimeoutMs: number;
  private readonly idleMs: number;
  private readonly maxDeferMs: number;
  private activeRuns = 0;
  private lastRunSettledAt = -Infinity;
  private wake: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;
  private closed = false;
  private pumpScheduled = false;

  constructor(
    private readonly update: MemoryUpdate,
    options: MemoryUpdateQueueOptions = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? 5_000;
    this.idleMs = options.idleMs ?? 20;
    this.maxDeferMs = options.maxDeferMs ?? 5_000;
  }

  /** Threads waiting, being updated, and waiting for a retry. */
  get size(): { pending: number; running: number; retrying: number } {
    return { pending: this.pending.size + this.due.size, running: this.running.size, retrying: this.retries.size };
  }

  /**
   * Queues an update of the thread (a retry waiting for it runs now instead). Ignored once shut down. `recorded`:
   * what the thread's turn recording read and wrote just now, which the update then does not read back.
   */
  enqueue(principal: Principal, threadId: string, recorded?: Promise<RecordedTurns | null>): void {
    this.schedule({ principal, threadId, failures: 0, queuedAt: performance.now(), ...(recorded ? { recorded } : {}) });
  }

  /** A run began (it asked for its setup slot): updates not yet started wait until it is over. */
  runStarted(): void {
    this.activeRuns += 1;
  }

  /**
   * A run holds the thread: the thread's update still waiting for an idle service is due now (its
   * recall should see its earlier turns; a conversation's turns back to back must not starve it).
   */
  threadResumed(principal: Principal, threadId: string): void {
    const id = `${principal.workspace}\u0000${threadId}`;
    const entry = this.pending.get(id);
    if (entry === undefined || this.closed) return;
    this.pending.delete(id);
    this.due.set(id, entry);
    this.pumpSoon();
  }

  /** A run is over (once per runStarted, whatever its outcome). */
  runSettled(): void {
    this.activeRuns = Math.max(0, this.activeRuns - 1);
    this.lastRunSettledAt = performance.now();
    if (this.activeRuns === 0 && this.pending.size > 0) this.wakeIn(this.idleMs);
  }

  /** Resolves once nothing is pending or running (retries waiting for their delay do not count). */
  whenIdle(): Promise<void> {
    if (this.pending.size === 0 && this.due.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Nest calls this at shutdown, before the stores close (MemoryModule depends on them). */
  onModuleDestroy(): Promise<void> {
    return this.shutdown(this.shutdownTimeoutMs);
  }

  /**
   * Stops taking work; what is pending or waiting for a retry is left for the threads' next turns
   * (logged); updates in flight get `timeoutMs` to finish, then are aborted.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.wake);
    for (const timer of this.retries.values()) clearTimeout(timer);
    const deferred = this.pending.size + this.due.size + this.retries.size;
    if (deferred > 0)
      logger.warn('memory_updates_deferred', {
        threads: deferred,
        reason: 'shutdown; done at each thread’s next turn',
      });
    this.pending.clear();
    this.due.clear();
    this.retries.clear();
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const finished = Promise.all(this.running.values()).then(() => 'done' as const);
    if ((await Promise.race([finished, timedOut])) === 'timeout') {
      logger.warn('memory_updates_aborted', { running: this.running.size, timeoutMs });
      this.abort.abort(new Error('shutdown'));
      await finished;
    }
    clearTimeout(timer);
  }

  private schedule(entry: Entry): void {
    if (this.closed) return;
    const id = `${entry.principal.workspace}\u0000${entry.threadId}`;
    const retry = this.retries.get(id);
    if (retry) {
      clearTimeout(retry);
      this.retries.delete(id);
    }
    if (this.running.has(id)) this.again.add(id);
    else if (!this.due.has(id))
      this.pending.set(id, { ...entry, queuedAt: this.pending.get(id)?.queuedAt ?? entry.queuedAt });
    // Not in the caller's turn: the caller is answering a user.
    this.pumpSoon();
  }

  /**
   * One look at the queue in the next turn of the event loop, however many asked for it. Updates
   * of a synchronous store finish within the turn they start in: were the next ones started there
   * too, 1,000 threads queued by a burst would run back to back for ~0.8 s with no I/O in between.
   * One look per turn starts at most `concurrency` of them.
   */
  private pumpSoon(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.closed) return;
    const now = performance.now();
    const idleFor = this.activeRuns > 0 ? -Infinity : now - this.lastRunSettledAt;
    let wakeIn = Infinity;
    for (const [id, entry] of this.due) {
      if (this.running.size >= this.concurrency) break;
      if (this.running.has(id)) continue;
      this.due.delete(id);
      this.start(id, entry);
    }
    for (const [id, entry] of this.pending) {
      if (this.running.size >= this.concurrency) break;
      if (this.running.has(id)) continue;
      const deferredFor = now - entry.queuedAt;
      if (idleFor < this.idleMs && deferredFor < this.maxDeferMs) {
        // Oldest first (insertion order): the first one waiting decides when to look again.
        wakeIn = Math.min(this.maxDeferMs - deferredFor, this.activeRuns > 0 ? Infinity : this.idleMs - idleFor);
        break;
      }
      this.pending.delete(id);
      this.start(id, entry);
    }
    if (wakeIn < Infinity) this.wakeIn(wakeIn);
  }

  private start(id: string, entry: Entry): void {
    const run = this.run(id, entry).finally(() => {
      this.running.delete(id);
      if (this.again.delete(id))
        this.schedule({
          principal: entry.principal,
          threadId: entry.threadId,
          failures: 0,
          queuedAt: performance.now(),
        });
      this.pumpSoon();
      if (this.pending.size === 0 && this.due.size === 0 && this.running.size === 0)
        this.idleWaiters.splice(0).forEach((resolve) => resolve());
    });
    this.running.set(id, run);
  }

  /** Looks at the pending updates again in `ms` (or sooner, if already due sooner). */
  private wakeIn(ms: number): void {
    const at = performance.now() + ms;
    if (this.wake !== undefined && this.wakeAt <= at) return;
    clearTimeout(this.wake);
    this.wakeAt = at;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.wakeAt = Infinity;
      this.pump();
    }, Math.ceil(ms));
  }

  private async run(id: string, entry: Entry): Promise<void> {
    const { principal, threadId } = entry;
    // A signal of its own, tied to the shutdown: the providers add (and may keep) listeners on what they are given.
    const run = new AbortController();
    const stop = () => run.abort(this.abort.signal.reason);
    this.abort.signal.addEventListener('abort', stop, { once: true });
    try {
      const report = await this.update(principal, threadId, run.signal, entry.recorded);
      if (report.turns + report.summaries[1] + report.summaries[2] + report.embedded > 0) {
        const { turns, embedded, summaryCalls } = report;
        logger.info('memory_updated', {
          threadId,
          workspace: principal.workspace,
          turns,
          level1: report.summaries[1],
          level2: report.summaries[2],
          embedded,
          summaryCalls,
        });
      }
    } catch (error) {
      const failures = entry.failures + 1;
      const delay = this.retryDelaysMs[failures - 1];
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (this.closed) return;
      if (delay === undefined) {
        logger.error('memory_update_failed', {
          threadId,
          workspace: principal.workspace,
          attempts: failures,
          error: reason,
          next: 'at the thread’s next turn',
        });
        return;
      }
      logger.warn('memory_update_failed', {
        threadId,
        workspace: principal.workspace,
        attempts: failures,
        error: reason,
        retryInMs: delay,
      });
      const timer = setTimeout(() => {
        this.retries.delete(id);
        this.schedule({ principal, threadId, failures, queuedAt: performance.now() });
      }, delay);
      timer.unref();
      this.retries.set(id, timer);
    } finally {
      this.abort.signal.removeEventListener('abort', stop);
    }
  }
}

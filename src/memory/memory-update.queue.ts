import type { Principal } from '../auth/principal';
import { Logger } from '../observability/logger';
import type { MemoryUpdateReport } from './thread-memory.writer';

export type MemoryUpdate = (principal: Principal, threadId: string, signal: AbortSignal) => Promise<MemoryUpdateReport>;

export interface MemoryUpdateQueueOptions {
  /** Threads updated at the same time. Default 2. */
  concurrency?: number;
  /** Pauses before each retry of a failed update; after the last one the update waits for the thread's next turn. */
  retryDelaysMs?: readonly number[];
  /** What updates in flight get at shutdown (onModuleDestroy) before they are aborted. Default 5 s. */
  shutdownTimeoutMs?: number;
}

/** 5 s, 30 s, 2 min, 10 min: a provider outage of a few minutes loses nothing. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000];

interface Entry {
  principal: Principal;
  threadId: string;
  /** Failed attempts so far. */
  failures: number;
}

const logger = new Logger('memory');

/**
 * The background side of conversation memory: after a run, its thread is queued here and updated
 * (ThreadMemoryWriter) without holding up anything the user waits for. Requests for one thread
 * coalesce (one pending entry; a request during an update runs it once more after it). A failed
 * update is logged and retried after DEFAULT_RETRY_DELAYS_MS; after the last retry it is logged as an
 * error and waits for the thread's next turn, which updates everything missing (updates are derived
 * from the stored thread, so a late one catches up fully). Never throws to its callers.
 */
export class MemoryUpdateQueue {
  private readonly pending = new Map<string, Entry>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly shutdownTimeoutMs: number;
  private closed = false;

  constructor(
    private readonly update: MemoryUpdate,
    options: MemoryUpdateQueueOptions = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? 5_000;
  }

  /** Threads waiting, being updated, and waiting for a retry. */
  get size(): { pending: number; running: number; retrying: number } {
    return { pending: this.pending.size, running: this.running.size, retrying: this.retries.size };
  }

  /** Queues an update of the thread (a retry waiting for it runs now instead). Ignored once shut down. */
  enqueue(principal: Principal, threadId: string): void {
    this.schedule({ principal, threadId, failures: 0 });
  }

  /** Resolves once nothing is pending or running (retries waiting for their delay do not count). */
  whenIdle(): Promise<void> {
    if (this.pending.size === 0 && this.running.size === 0) return Promise.resolve();
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
    for (const timer of this.retries.values()) clearTimeout(timer);
    const deferred = this.pending.size + this.retries.size;
    if (deferred > 0) logger.warn('memory_updates_deferred', { threads: deferred, reason: 'shutdown; done at each thread’s next turn' });
    this.pending.clear();
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
    else this.pending.set(id, entry);
    // Not in the caller's turn: the caller is answering a user.
    setImmediate(() => this.pump());
  }

  private pump(): void {
    for (const [id, entry] of this.pending) {
      if (this.running.size >= this.concurrency) break;
      if (this.running.has(id)) continue;
      this.pending.delete(id);
      const run = this.run(id, entry).finally(() => {
        this.running.delete(id);
        if (this.again.delete(id)) this.schedule({ ...entry, failures: 0 });
        this.pump();
        if (this.pending.size === 0 && this.running.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
      });
      this.running.set(id, run);
    }
  }

  private async run(id: string, entry: Entry): Promise<void> {
    const { principal, threadId } = entry;
    // A signal of its own, tied to the shutdown: the providers add (and may keep) listeners on what they are given.
    const run = new AbortController();
    const stop = () => run.abort(this.abort.signal.reason);
    this.abort.signal.addEventListener('abort', stop, { once: true });
    try {
      const report = await this.update(principal, threadId, run.signal);
      if (report.turns + report.summaries[1] + report.summaries[2] + report.embedded > 0) {
        const { turns, embedded, summaryCalls } = report;
        logger.info('memory_updated', { threadId, workspace: principal.workspace, turns, level1: report.summaries[1], level2: report.summaries[2], embedded, summaryCalls });
      }
    } catch (error) {
      const failures = entry.failures + 1;
      const delay = this.retryDelaysMs[failures - 1];
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (this.closed) return;
      if (delay === undefined) {
        logger.error('memory_update_failed', { threadId, workspace: principal.workspace, attempts: failures, error: reason, next: 'at the thread’s next turn' });
        return;
      }
      logger.warn('memory_update_failed', { threadId, workspace: principal.workspace, attempts: failures, error: reason, retryInMs: delay });
      const timer = setTimeout(() => {
        this.retries.delete(id);
        this.schedule({ ...entry, failures });
      }, delay);
      timer.unref();
      this.retries.set(id, timer);
    } finally {
      this.abort.signal.removeEventListener('abort', stop);
    }
  }
}

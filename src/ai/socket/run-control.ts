import { Logger } from '../../observability/logger';
import type { RedisConnection } from '../../redis/redis-connection';
import { ActiveRunRegistry, RunEndedListener, ThreadStopReason } from '../runs/active-run.registry';
import type { AiNamespace } from './ai-server-socket';

/** How long a stop sent to the other instances waits for their answers. */
export const REMOTE_STOP_TIMEOUT_MS = 2_000;

export interface RemoteWatchTimings {
  /** A socket watching a run of another instance stops watching it after this long unless its instance renews it. */
  ttlMs: number;
  /** How often an instance renews the watches of its sockets on runs of other instances. */
  renewMs: number;
}

/** A dead instance's watchers leave within 30 s; a Redis outage of up to about 20 s drops none. */
export const DEFAULT_REMOTE_WATCH_TIMINGS: RemoteWatchTimings = Object.freeze({ ttlMs: 30_000, renewMs: 10_000 });

const logger = new Logger('runs');

/**
 * Stops and watches runs by run key wherever they run: on this instance through the ActiveRunRegistry;
 * with REDIS_URL, a run of another instance through Socket.IO's serverSideEmit over the Redis adapter,
 * which that instance's RunControl answers from its own registry. While Redis is down nothing is sent (a
 * run of another instance cannot be reached; each instance serves alone).
 *
 * A watch sent to another instance is a lease there (`ttlMs`), renewed every `renewMs` (and as soon as
 * Redis is back) while the socket watches: if this instance dies, its sockets stop watching by themselves
 * and AI_DISCONNECT_POLICY applies to the run as if they had disconnected.
 */
export class RunControl {
  private namespace: AiNamespace | null = null;
  /** Watches of this instance's sockets on runs of other instances: `${runKey} ${watcher}` → both. */
  private readonly remoteWatches = new Map<string, { runKey: string; watcher: string }>();
  private readonly renewal: NodeJS.Timeout;
  private readonly timings: RemoteWatchTimings;

  constructor(
    private readonly runs: ActiveRunRegistry,
    private readonly redis: Pick<RedisConnection, 'isUp' | 'onStateChange'> | null,
    timings: Partial<RemoteWatchTimings> = {},
  ) {
    this.timings = { ...DEFAULT_REMOTE_WATCH_TIMINGS, ...timings };
    this.renewal = setInterval(() => this.renewRemoteWatches(), this.timings.renewMs);
    this.renewal.unref();
    redis?.onStateChange((up) => up && this.renewRemoteWatches());
  }

  /** Answers the other instances' messages on the namespace (once its Redis adapter is set). */
  listen(namespace: AiNamespace): void {
    if (!this.redis) return;
    this.namespace = namespace;
    namespace.on('ai:run_stop', (runKey, answer) => answer(this.runs.stopRun(runKey, 'interrupt')));
    namespace.on('ai:thread_stop', (threadId, reason, answer) => answer(this.runs.stopThread(threadId, reason)));
    namespace.on('ai:run_watch', (runKey, watcher) => this.runs.watch(runKey, watcher, this.timings.ttlMs));
    namespace.on('ai:run_unwatch', (runKey, watcher) => this.runs.unwatchRun(runKey, watcher));
  }

  /** Stops the run (its own terminal event follows through its log); false when no instance runs it. */
  async stop(runKey: string): Promise<boolean> {
    if (this.runs.stopRun(runKey, 'interrupt')) return true;
    const namespace = this.reachable();
    if (!namespace) return false;
    return this.askOthers({ runKey }, () => namespace.serverSideEmitWithAck('ai:run_stop', runKey));
  }

  /**
   * Stops the run holding the thread's lease, wherever it runs (its terminal event follows as for any stop); false
   * when no instance reachable runs one. The caller checked that the thread is its principal's.
   */
  async stopThread(threadId: string, reason: ThreadStopReason): Promise<boolean> {
    if (this.runs.stopThread(threadId, reason)) return true;
    const namespace = this.reachable();
    if (!namespace) return false;
    return this.askOthers({ threadId }, () => namespace.serverSideEmitWithAck('ai:thread_stop', threadId, reason));
  }

  /** Calls `listener` when a run of this instance that held a thread's lease ends. Returns the unsubscribe. */
  onRunEnded(listener: RunEndedListener): () => void {
    return this.runs.onRunEnded(listener);
  }

  /** A socket of this instance rejoined the run: while it watches, the run is not stopped for lack of watchers. */
  watch(runKey: string, watcher: string): void {
    if (this.runs.watch(runKey, watcher)) return;
    if (!this.redis) return;
    this.remoteWatches.set(`${runKey} ${watcher}`, { runKey, watcher });
    this.reachable()?.serverSideEmit('ai:run_watch', runKey, watcher);
  }

  unwatch(runKey: string, watcher: string): void {
    this.remoteWatches.delete(`${runKey} ${watcher}`);
    if (!this.runs.unwatchRun(runKey, watcher)) this.reachable()?.serverSideEmit('ai:run_unwatch', runKey, watcher);
  }

  /** Stops renewing at shutdown (Nest lifecycle): the watches of the sockets being closed lapse on the other instances. */
  onApplicationShutdown(): void {
    clearInterval(this.renewal);
  }

  /** Whether some other instance answered yes, within REMOTE_STOP_TIMEOUT_MS. */
  private async askOthers(subject: Record<string, string>, ask: () => Promise<boolean[]>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      // The adapter's own request timeout does not cover a Redis that fails before publishing: bound it here.
      const timeout = new Promise<boolean[]>(
        (resolve) => (timer = setTimeout(() => resolve([]), REMOTE_STOP_TIMEOUT_MS)),
      );
      const answers = await Promise.race([ask(), timeout]);
      return answers.some(Boolean);
    } catch (error) {
      // Some instance did not answer in time; the one running it may still have stopped it.
      const answers = (error as { responses?: boolean[] }).responses ?? [];
      logger.warn('remote_stop_incomplete', {
        ...subject,
        error: error instanceof Error ? error.message : String(error),
      });
      return answers.some(Boolean);
    } finally {
      clearTimeout(timer);
    }
  }

  private renewRemoteWatches(): void {
    const namespace = this.reachable();
    if (!namespace) return;
    for (const { runKey, watcher } of this.remoteWatches.values())
      namespace.serverSideEmit('ai:run_watch', runKey, watcher);
  }

  private reachable(): AiNamespace | null {
    return this.redis?.isUp ? this.namespace : null;
  }
}

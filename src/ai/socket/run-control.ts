import { Logger } from '../../observability/logger';
import type { RedisConnection } from '../../redis/redis-connection';
import { ActiveRunRegistry } from '../runs/active-run.registry';
import type { AiNamespace } from './ai-server-socket';

/** How long a stop sent to the other instances waits for their answers. */
export const REMOTE_STOP_TIMEOUT_MS = 2_000;

const logger = new Logger('runs');

/**
 * Stops and watches runs by run key wherever they run (docs/protocol.md §8.7): on this instance through
 * the ActiveRunRegistry; with REDIS_URL, a run of another instance through Socket.IO's serverSideEmit
 * over the Redis adapter, which that instance's RunControl answers from its own registry. While Redis is
 * down nothing is sent (a run of another instance cannot be reached; each instance serves alone).
 */
export class RunControl {
  private namespace: AiNamespace | null = null;

  constructor(
    private readonly runs: ActiveRunRegistry,
    private readonly redis: Pick<RedisConnection, 'isUp'> | null,
  ) {}

  /** Answers the other instances' messages on the namespace (once its Redis adapter is set). */
  listen(namespace: AiNamespace): void {
    if (!this.redis) return;
    this.namespace = namespace;
    namespace.on('ai:run_stop', (runKey, answer) => answer(this.runs.stopRun(runKey, 'interrupt')));
    namespace.on('ai:run_watch', (runKey, watcher) => this.runs.watch(runKey, watcher));
    namespace.on('ai:run_unwatch', (runKey, watcher) => this.runs.unwatchRun(runKey, watcher));
  }

  /** Stops the run (its own terminal event follows through its log); false when no instance runs it. */
  async stop(runKey: string): Promise<boolean> {
    if (this.runs.stopRun(runKey, 'interrupt')) return true;
    const namespace = this.reachable();
    if (!namespace) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      // The adapter's own request timeout does not cover a Redis that fails before publishing: bound it here.
      const timeout = new Promise<boolean[]>(
        (resolve) => (timer = setTimeout(() => resolve([]), REMOTE_STOP_TIMEOUT_MS)),
      );
      const answers = await Promise.race([namespace.serverSideEmitWithAck('ai:run_stop', runKey), timeout]);
      return answers.some(Boolean);
    } catch (error) {
      // Some instance did not answer in time; the one running it may still have stopped it.
      const answers = (error as { responses?: boolean[] }).responses ?? [];
      logger.warn('remote_stop_incomplete', { runKey, error: error instanceof Error ? error.message : String(error) });
      return answers.some(Boolean);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A socket of this instance rejoined the run: while it watches, the run is not stopped for lack of watchers. */
  watch(runKey: string, watcher: string): void {
    if (!this.runs.watch(runKey, watcher)) this.reachable()?.serverSideEmit('ai:run_watch', runKey, watcher);
  }

  unwatch(runKey: string, watcher: string): void {
    if (!this.runs.unwatchRun(runKey, watcher)) this.reachable()?.serverSideEmit('ai:run_unwatch', runKey, watcher);
  }

  private reachable(): AiNamespace | null {
    return this.redis?.isUp ? this.namespace : null;
  }
}

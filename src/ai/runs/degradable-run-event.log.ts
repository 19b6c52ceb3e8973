import type { RedisConnection } from '../../redis/redis-connection';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { InMemoryRunEventLog } from './in-memory-run-event.log';
import { RedisRunEventLog } from './redis-run-event.log';
import { FollowOutcome, LatestRun, RunEventListener, RunEventLog, RunEventWriter, RunOwner } from './run-event.log';

const logger = new Logger('runs');

/**
 * With REDIS_URL. A request started while Redis is down logs to this instance's memory only (degraded:
 * only this instance can rejoin it). A request started while Redis is up logs to Redis AND keeps a copy
 * in this instance's memory until its terminal event is written there; if a write is refused on the way
 * (Redis lost, full under `noeviction`, READONLY after a failover, its stream evicted), the request goes
 * on, logging to that copy alone, which a rejoin on this instance follows: no request fails for Redis.
 * A rejoin finds the thread's newest request in either (request keys sort by start time) and follows it
 * where it is logged, this instance's copy first.
 */
export class DegradableRunEventLog implements RunEventLog {
  constructor(
    private readonly connection: Pick<RedisConnection, 'isUp'>,
    private readonly redis: RedisRunEventLog,
    private readonly memory: InMemoryRunEventLog,
  ) {}

  open(runKey: string, owner: RunOwner): RunEventWriter {
    const local = this.memory.open(runKey, owner);
    if (!this.connection.isUp) return local;
    let shared = true;
    const remote = this.redis.open(runKey, owner, {
      refused: (error) => {
        shared = false;
        logger.debug('run_log_kept_locally', { runKey, error: error.message });
      },
      finished: () => this.memory.discard(runKey),
    });
    return {
      append: (event) => {
        local.append(event);
        if (shared) remote.append(event);
      },
      markLatest: (threadId, trace) => {
        local.markLatest(threadId, trace);
        if (shared) remote.markLatest(threadId, trace);
      },
    };
  }

  async latest(threadId: string): Promise<LatestRun | null> {
    const local = await this.memory.latest(threadId);
    let shared: LatestRun | null;
    try {
      shared = await this.redis.latest(threadId);
    } catch (error) {
      if (local) return local;
      throw sharedLogUnavailable(error);
    }
    if (!local || !shared) return local ?? shared;
    return local.runKey >= shared.runKey ? local : shared;
  }

  async follow(runKey: string, afterSeq: number, listener: RunEventListener): Promise<FollowOutcome> {
    if (this.memory.has(runKey)) return this.memory.follow(runKey, afterSeq, listener);
    try {
      return await this.redis.follow(runKey, afterSeq, listener);
    } catch (error) {
      throw sharedLogUnavailable(error);
    }
  }

  /** After the transports closed (Nest lifecycle): no more heartbeats or follows. */
  onApplicationShutdown(): void {
    this.redis.close();
  }
}

function sharedLogUnavailable(error: unknown): AppError {
  return new AppError(
    'store_unavailable',
    `The shared request log is unavailable: ${error instanceof Error ? error.message : String(error)}`,
  );
}

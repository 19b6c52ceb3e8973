import type { RedisConnection } from '../../redis/redis-connection';
import { AppError } from '../../errors/app-error';
import { InMemoryRunEventLog } from './in-memory-run-event.log';
import { RedisRunEventLog } from './redis-run-event.log';
import { FollowOutcome, LatestRun, RunEventListener, RunEventLog, RunEventWriter, RunOwner } from './run-event.log';

/**
 * With REDIS_URL: a request logs to Redis when Redis is up as it starts, else to this instance's
 * memory (degraded: only this instance can rejoin it). A rejoin finds the thread's newest request in
 * either (request keys sort by start time) and follows it where it is logged.
 */
export class DegradableRunEventLog implements RunEventLog {
  constructor(
    private readonly connection: Pick<RedisConnection, 'isUp'>,
    private readonly redis: RedisRunEventLog,
    private readonly memory: InMemoryRunEventLog,
  ) {}

  open(runKey: string, owner: RunOwner, lost: () => void): RunEventWriter {
    return this.connection.isUp ? this.redis.open(runKey, owner, lost) : this.memory.open(runKey, owner);
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
    return local.runKey > shared.runKey ? local : shared;
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

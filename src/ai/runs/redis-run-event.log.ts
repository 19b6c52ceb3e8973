import type { ChainableCommander } from 'ioredis';
import { Logger } from '../../observability/logger';
import type { RedisConnection } from '../../redis/redis-connection';
import type { QuietRedis } from '../../redis/redis-client';
import { entryIdOf, parseStreamEntries } from './redis-stream.entries';
import { RedisStreamFollower } from './redis-stream.follower';
import {
  FollowOutcome,
  LatestRun,
  LoggedRunEvent,
  RunEventListener,
  RunEventLog,
  RunEventLogLimits,
  RunEventWriter,
  RunOwner,
  TERMINAL_RUN_EVENTS,
} from './run-event.log';

/** A running request's stream expires this long after its instance last refreshed it (so a dead instance's streams go). */
export const RUNNING_LOG_TTL_MS = 30_000;
/** How often an instance refreshes the streams of its running requests. */
const HEARTBEAT_MS = 10_000;
/** A thread's pointer to its latest request, until that request ends (then: the retention). Bounds what a crash leaves. */
const POINTER_TTL_MS = 6 * 60 * 60_000;

const KEY_PREFIX = 'graph-ai:';
const streamKey = (runKey: string) => `${KEY_PREFIX}run:${runKey}`;
const pointerKey = (threadId: string) => `${KEY_PREFIX}thread-run:${threadId}`;

/**
 * Every write of one flush in ONE script call: each queued write is an operation code and its arguments in
 * ARGV, so the client builds and parses one command per flush instead of one per event (what the log costs
 * is mostly the client's work per command). `x` key maxlen id event payload: XADD MAXLEN ~; `t` key ms:
 * PEXPIRE; `s` key value ms: SET PX; `q` key value ms: PEXPIRE the key only while it still holds the value
 * (a thread's pointer may already name a newer request). Standalone Redis (or Sentinel): the keys are not
 * declared, which Redis Cluster would need.
 */
const WRITE_SCRIPT = `
local i = 1
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'x' then
    redis.call('XADD', ARGV[i + 1], 'MAXLEN', '~', ARGV[i + 2], ARGV[i + 3], 'e', ARGV[i + 4], 'p', ARGV[i + 5])
    i = i + 6
  elseif op == 't' then
    redis.call('PEXPIRE', ARGV[i + 1], ARGV[i + 2])
    i = i + 3
  elseif op == 's' then
    redis.call('SET', ARGV[i + 1], ARGV[i + 2], 'PX', ARGV[i + 3])
    i = i + 4
  elseif op == 'q' then
    if redis.call('GET', ARGV[i + 1]) == ARGV[i + 2] then redis.call('PEXPIRE', ARGV[i + 1], ARGV[i + 3]) end
    i = i + 4
  else
    return redis.error_reply('unknown operation ' .. tostring(op))
  end
end
return 0`;

/** Operations per script call: a flush of more goes in several calls (one pipeline), so no call blocks Redis long. */
const OPERATIONS_PER_CALL = 1_000;

interface RedisRun {
  readonly runKey: string;
  readonly key: string;
  readonly owner: RunOwner;
  readonly lost: () => void;
  /** The pointer written by markLatest (key and value), to shorten at the end. */
  pointer: { key: string; value: string } | null;
  /** A thread named by markLatest before any event: pointed to right after the first one, so the pointer never names a stream not written yet. */
  latestAfterFirstEvent: string | null;
  queuedAny: boolean;
  written: boolean;
  finished: boolean;
  isLost: boolean;
}

type Pending = { run: RedisRun; event: LoggedRunEvent } | { run: RedisRun; latest: string };

interface WriteScript {
  writeRunLogs(...args: Array<string | number>): Promise<number>;
}

const logger = new Logger('runs');

/**
 * The request event log in Redis (docs/protocol.md §8.7), shared by every instance: one Stream per
 * request whose entry ids are the events' seq (`<seq>-0`), trimmed with `XADD MAXLEN ~`, and one key
 * per thread naming its latest request and its owner. Writes never wait: the events of every request
 * queued during one turn of the event loop (the token flusher sends all its runs' text in one turn)
 * go to Redis in ONE pipeline; a request whose write fails is reported lost (its run is stopped).
 * Time bounds: a running request's stream lives RUNNING_LOG_TTL_MS past its instance's last
 * heartbeat (so a crashed instance's streams vanish, ending their followers), a finished one for the
 * retention (AI_REJOIN_GRACE_MS). Rejoins read with XRANGE, then follow with the shared
 * RedisStreamFollower: no gap (the read resumes after the last seq replayed), no duplicate.
 */
export class RedisRunEventLog implements RunEventLog {
  private readonly redis: QuietRedis & WriteScript;
  private readonly follower: RedisStreamFollower;
  private readonly running = new Map<string, RedisRun>();
  private pending: Pending[] = [];
  private flushScheduled = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    connection: RedisConnection,
    private readonly limits: RunEventLogLimits,
    /** How often followers notice a vanished stream (FOLLOW_BLOCK_MS; specs shorten it). */
    followBlockMs?: number,
  ) {
    this.redis = connection.commands as QuietRedis & WriteScript;
    this.redis.defineCommand('writeRunLogs', { numberOfKeys: 0, lua: WRITE_SCRIPT });
    this.follower = new RedisStreamFollower(connection.client({ role: 'run-log-follower' }), this.redis, followBlockMs);
    this.heartbeat = setInterval(() => this.refreshRunning(), HEARTBEAT_MS);
    this.heartbeat.unref();
    // Redis lost: the running requests logging there can be neither rejoined nor stopped from elsewhere; they end.
    connection.onStateChange((up) => {
      if (up) return;
      for (const run of [...this.running.values()]) this.markLost(run, new Error('the connection to Redis was lost'));
    });
  }

  /** Requests of this instance still running (their streams are refreshed). */
  get runningCount(): number {
    return this.running.size;
  }

  open(runKey: string, owner: RunOwner, lost: () => void): RunEventWriter {
    const run: RedisRun = {
      runKey,
      key: streamKey(runKey),
      owner,
      lost,
      pointer: null,
      latestAfterFirstEvent: null,
      queuedAny: false,
      written: false,
      finished: false,
      isLost: false,
    };
    this.running.set(runKey, run);
    return {
      append: (event) => {
        if (run.finished || run.isLost) return;
        if (TERMINAL_RUN_EVENTS.has(event.event)) {
          run.finished = true;
          this.running.delete(runKey);
        }
        this.queue({ run, event });
        run.queuedAny = true;
        if (run.latestAfterFirstEvent !== null) {
          this.queue({ run, latest: run.latestAfterFirstEvent });
          run.latestAfterFirstEvent = null;
        }
      },
      markLatest: (threadId) => {
        if (run.finished || run.isLost) return;
        if (run.queuedAny) this.queue({ run, latest: threadId });
        else run.latestAfterFirstEvent = threadId;
      },
    };
  }

  async latest(threadId: string): Promise<LatestRun | null> {
    const value = await this.redis.get(pointerKey(threadId));
    return value ? (JSON.parse(value) as LatestRun) : null;
  }

  async follow(runKey: string, afterSeq: number, listener: RunEventListener): Promise<FollowOutcome> {
    const key = streamKey(runKey);
    const results = await this.redis
      .pipeline()
      .exists(key)
      .xrange(key, '-', '+', 'COUNT', 1)
      .xrange(key, `(${entryIdOf(afterSeq)}`, '+')
      .exec();
    const [exists, first, after] = (results ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [number, Array<[string, string[]]>, Array<[string, string[]]>];
    if (exists !== 1) return { kind: 'gone' };
    const firstKept = parseStreamEntries(first)[0]?.seq ?? 1;
    if (firstKept > afterSeq + 1) return { kind: 'trimmed', firstKeptSeq: firstKept };
    const replay = parseStreamEntries(after);
    if (replay.length > 0) listener.events(replay);
    if (replay.some((event) => TERMINAL_RUN_EVENTS.has(event.event)))
      return { kind: 'following', stop: () => undefined };
    return { kind: 'following', stop: this.follower.add(key, replay.at(-1)?.seq ?? afterSeq, listener) };
  }

  /** Stops the heartbeat and the followers (shutdown). */
  close(): void {
    clearInterval(this.heartbeat);
    this.follower.close();
  }

  private queue(item: Pending): void {
    this.pending.push(item);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => void this.flush());
  }

  /** Everything queued since the last flush: one script call (a few for a large flush, in one pipeline). */
  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    const calls: Array<Array<string | number>> = [[]];
    let operations = 0;
    const add = (...operation: Array<string | number>) => {
      if (operations === OPERATIONS_PER_CALL) {
        calls.push([]);
        operations = 0;
      }
      calls[calls.length - 1].push(...operation);
      operations += 1;
    };
    const runs = new Set<RedisRun>();
    for (const item of batch) {
      const { run } = item;
      runs.add(run);
      if ('event' in item) {
        add(
          'x',
          run.key,
          this.limits.maxEventsPerRun,
          entryIdOf(item.event.seq),
          item.event.event,
          JSON.stringify(item.event.payload),
        );
        if (!run.written) {
          run.written = true;
          add('t', run.key, RUNNING_LOG_TTL_MS);
        }
        if (TERMINAL_RUN_EVENTS.has(item.event.event)) {
          // A finished request is kept for the retention; its thread's pointer too, unless a newer request took it.
          add('t', run.key, this.limits.retentionMs);
          if (run.pointer) add('q', run.pointer.key, run.pointer.value, this.limits.retentionMs);
        }
      } else {
        run.pointer = {
          key: pointerKey(item.latest),
          value: JSON.stringify({ runKey: run.runKey, owner: run.owner } satisfies LatestRun),
        };
        add('s', run.pointer.key, run.pointer.value, POINTER_TTL_MS);
      }
    }
    try {
      if (calls.length === 1) {
        await this.redis.writeRunLogs(...calls[0]);
      } else {
        const pipeline = this.redis.pipeline() as ChainableCommander & {
          writeRunLogs(...args: Array<string | number>): ChainableCommander;
        };
        for (const call of calls) pipeline.writeRunLogs(...call);
        for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
      }
    } catch (error) {
      // A write that failed leaves these requests' logs incomplete: none of them can be rejoined reliably.
      for (const run of runs) this.markLost(run, error as Error);
    }
  }

  private markLost(run: RedisRun, error: Error): void {
    if (run.isLost) return;
    run.isLost = true;
    this.running.delete(run.runKey);
    logger.warn('run_log_write_failed', { runKey: run.runKey, error: error.message });
    run.lost();
  }

  /** Keeps the streams of this instance's running requests alive (they expire RUNNING_LOG_TTL_MS after a crash). */
  private refreshRunning(): void {
    const runs = [...this.running.values()].filter((run) => run.written);
    if (runs.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const run of runs) pipeline.pexpire(run.key, RUNNING_LOG_TTL_MS);
    // A failure here is not a request's: its next write fails and reports it.
    pipeline.exec().catch(() => undefined);
  }
}

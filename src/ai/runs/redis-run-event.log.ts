import type { ChainableCommander } from 'ioredis';
import { Logger } from '../../observability/logger';
import type { TraceContext } from '../../observability/tracing/gen-ai.tracer';
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
 * is mostly the client's work per command). `x` run create key maxlen id event payload: XADD MAXLEN ~, the
 * stream created only by a request's first event (`create` 1): a later event whose stream is gone (expired,
 * evicted, Redis restarted empty) writes nothing and its `run` number is returned, so that request logs on
 * locally instead of leaving a stream with a gap; an entry already written (the command resent after a
 * reconnection) is skipped. `t` key ms: PEXPIRE; `s` key value ms: SET PX; `q` key value ms: PEXPIRE the
 * key only while it still holds the value (a thread's pointer may already name a newer request). Any other
 * error (OOM, READONLY) fails the call. Standalone Redis (or Sentinel): the keys are not declared, which
 * Redis Cluster would need.
 */
const WRITE_SCRIPT = `
local missing = {}
local i = 1
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'x' then
    local added
    if ARGV[i + 2] == '1' then
      added = redis.pcall('XADD', ARGV[i + 3], 'MAXLEN', '~', ARGV[i + 4], ARGV[i + 5], 'e', ARGV[i + 6], 'p', ARGV[i + 7])
    else
      added = redis.pcall('XADD', ARGV[i + 3], 'NOMKSTREAM', 'MAXLEN', '~', ARGV[i + 4], ARGV[i + 5], 'e', ARGV[i + 6], 'p', ARGV[i + 7])
    end
    if type(added) == 'table' and added.err then
      if not string.find(added.err, 'equal or smaller', 1, true) then return redis.error_reply(added.err) end
    elseif not added then
      table.insert(missing, tonumber(ARGV[i + 1]))
    end
    i = i + 8
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
return missing`;

/** Operations per script call: a flush of more goes in several calls (one pipeline), so no call blocks Redis long. */
const OPERATIONS_PER_CALL = 1_000;

/** What becomes of a request's shared log (DegradableRunEventLog keeps a local copy until it knows). */
export interface SharedRunLogOutcome {
  /** A write was refused (Redis down, full, read-only) or the stream vanished: the request's log is no longer shared. */
  refused(error: Error): void;
  /** The terminal event is written: the shared log is complete. */
  finished(): void;
}

const NO_OUTCOME: SharedRunLogOutcome = { refused: () => undefined, finished: () => undefined };

interface RedisRun {
  readonly runKey: string;
  readonly key: string;
  readonly owner: RunOwner;
  readonly outcome: SharedRunLogOutcome;
  /** The pointer written by markLatest (key and value), to shorten at the end. */
  pointer: { key: string; value: string } | null;
  /** A thread named by markLatest before any event: pointed to right after the first one, so the pointer never names a stream not written yet. */
  latestAfterFirstEvent: Latest | null;
  queuedAny: boolean;
  /** Its first event was queued (the one that creates the stream). */
  created: boolean;
  finished: boolean;
  /** A write was refused: nothing more of it goes to Redis. */
  refused: boolean;
}

/** A thread named the request's latest, with the trace context of its run when traced. */
interface Latest {
  threadId: string;
  trace?: TraceContext;
}

type Pending = { run: RedisRun; event: LoggedRunEvent } | { run: RedisRun; latest: Latest };

interface WriteScript {
  writeRunLogs(...args: Array<string | number>): Promise<number[]>;
}

const logger = new Logger('runs');

/**
 * The request event log in Redis, shared by every instance: one Stream per request whose entry ids are
 * the events' seq (`<seq>-0`), trimmed with `XADD MAXLEN ~`, and one key per thread naming its latest
 * request, its owner and, when traced, its run's W3C trace context (a rejoin elsewhere continues that trace).
 * Writes never wait: the events of every request queued during one turn of the
 * event loop (the token flusher sends all its runs' text in one turn) go to Redis in ONE pipeline. A
 * request whose write is refused (Redis down, full under `noeviction`, READONLY after a failover) or
 * whose stream vanished is reported through its outcome and written no more: DegradableRunEventLog goes
 * on with the copy it keeps in this instance's memory, and the request goes on. Time bounds: a running
 * request's stream lives RUNNING_LOG_TTL_MS past its instance's last heartbeat (so a crashed instance's
 * streams vanish, ending their followers), a finished one for the retention (AI_REJOIN_GRACE_MS).
 * Rejoins read with XRANGE, then follow with the shared RedisStreamFollower: no gap (the read resumes
 * after the last seq replayed), no duplicate.
 */
export class RedisRunEventLog implements RunEventLog {
  private readonly redis: QuietRedis & WriteScript;
  private readonly connection: RedisConnection;
  private readonly follower: RedisStreamFollower;
  private readonly running = new Map<string, RedisRun>();
  private pending: Pending[] = [];
  private flushScheduled = false;
  /** Whether the last write went through (null before any): the change is logged once, not per request. */
  private sharing: boolean | null = null;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    connection: RedisConnection,
    private readonly limits: RunEventLogLimits,
    /** How often followers notice a vanished stream (FOLLOW_BLOCK_MS; specs shorten it). */
    followBlockMs?: number,
  ) {
    this.connection = connection;
    this.redis = connection.commands as QuietRedis & WriteScript;
    this.redis.defineCommand('writeRunLogs', { numberOfKeys: 0, lua: WRITE_SCRIPT });
    this.follower = new RedisStreamFollower(connection.client({ role: 'run-log-follower' }), this.redis, followBlockMs);
    this.heartbeat = setInterval(() => this.refreshRunning(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Requests of this instance still running (their streams are refreshed). */
  get runningCount(): number {
    return this.running.size;
  }

  open(runKey: string, owner: RunOwner, outcome: SharedRunLogOutcome = NO_OUTCOME): RunEventWriter {
    const run: RedisRun = {
      runKey,
      key: streamKey(runKey),
      owner,
      outcome,
      pointer: null,
      latestAfterFirstEvent: null,
      queuedAny: false,
      created: false,
      finished: false,
      refused: false,
    };
    this.running.set(runKey, run);
    return {
      append: (event) => {
        if (run.finished || run.refused) return;
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
      markLatest: (threadId, trace) => {
        if (run.finished || run.refused) return;
        const latest: Latest = { threadId, ...(trace ? { trace } : {}) };
        if (run.queuedAny) this.queue({ run, latest });
        else run.latestAfterFirstEvent = latest;
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
    const batch = this.pending.filter((item) => !item.run.refused);
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
    const runs: RedisRun[] = [];
    const numbers = new Map<RedisRun, number>();
    const numberOf = (run: RedisRun) => {
      let number = numbers.get(run);
      if (number === undefined) {
        number = runs.push(run) - 1;
        numbers.set(run, number);
      }
      return number;
    };
    const finishing: RedisRun[] = [];
    for (const item of batch) {
      const { run } = item;
      const number = numberOf(run);
      if ('event' in item) {
        const create = !run.created;
        run.created = true;
        add(
          'x',
          number,
          create ? 1 : 0,
          run.key,
          this.limits.maxEventsPerRun,
          entryIdOf(item.event.seq),
          item.event.event,
          JSON.stringify(item.event.payload),
        );
        if (create) add('t', run.key, RUNNING_LOG_TTL_MS);
        if (TERMINAL_RUN_EVENTS.has(item.event.event)) {
          // A finished request is kept for the retention; its thread's pointer too, unless a newer request took it.
          add('t', run.key, this.limits.retentionMs);
          if (run.pointer) add('q', run.pointer.key, run.pointer.value, this.limits.retentionMs);
          finishing.push(run);
        }
      } else {
        const { threadId, trace } = item.latest;
        run.pointer = {
          key: pointerKey(threadId),
          value: JSON.stringify({
            runKey: run.runKey,
            owner: run.owner,
            ...(trace ? { trace } : {}),
          } satisfies LatestRun),
        };
        add('s', run.pointer.key, run.pointer.value, POINTER_TTL_MS);
      }
    }
    if (runs.length === 0) return;
    let missing: number[];
    try {
      // The script may run twice (it skips entries already written): a write caught by a reconnection is sent again.
      missing = await this.connection.acrossReconnection(async () => {
        if (calls.length === 1) return this.redis.writeRunLogs(...calls[0]);
        const pipeline = this.redis.pipeline() as ChainableCommander & {
          writeRunLogs(...args: Array<string | number>): ChainableCommander;
        };
        for (const call of calls) pipeline.writeRunLogs(...call);
        const found: number[] = [];
        for (const [error, result] of (await pipeline.exec()) ?? []) {
          if (error) throw error;
          found.push(...(result as number[]));
        }
        return found;
      });
    } catch (error) {
      // Written partly or not at all: none of these requests' shared logs can be trusted any more.
      this.refuse(runs, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.refuse(
      [...new Set(missing)].map((number) => runs[number]),
      new Error('its stream is gone from Redis (expired, evicted, or Redis restarted empty)'),
    );
    if (this.sharing === false) {
      this.sharing = true;
      logger.info('run_log_shared_again', {});
    }
    for (const run of finishing) if (!run.refused) run.outcome.finished();
  }

  /**
   * These requests log no more to Redis (their outcome says so, and they go on with their local copy). Their
   * streams are deleted when Redis still lets us, so a rejoin on another instance is told at once that the
   * events are not kept there rather than waiting for the rest; otherwise they expire (no more heartbeat).
   */
  private refuse(runs: RedisRun[], error: Error): void {
    const refused = runs.filter((run) => !run.refused);
    if (refused.length === 0) return;
    for (const run of refused) {
      run.refused = true;
      this.running.delete(run.runKey);
    }
    if (this.sharing !== false) {
      this.sharing = false;
      logger.warn('run_log_not_shared', { requests: refused.length, error: error.message });
    }
    this.redis.del(...refused.map((run) => run.key)).catch(() => undefined);
    for (const run of refused) run.outcome.refused(error);
  }

  /** Keeps the streams of this instance's running requests alive (they expire RUNNING_LOG_TTL_MS after a crash). */
  private refreshRunning(): void {
    const runs = [...this.running.values()].filter((run) => run.created);
    if (runs.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const run of runs) pipeline.pexpire(run.key, RUNNING_LOG_TTL_MS);
    // A failure here is not a request's: its next write fails and reports it.
    pipeline.exec().catch(() => undefined);
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import { TestRedisServer } from '../../../test/support/test-redis.server';
import { waitUntil } from '../../../test/support/wait-until';
import { LogEntry } from '../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { RedisConnection } from '../../redis/redis-connection';
import { RedisRunEventLog, RUNNING_LOG_TTL_MS } from './redis-run-event.log';
import { LoggedRunEvent, RunEventListener } from './run-event.log';

const owner = { workspace: 'default', userId: 'ada' };
const token = (seq: number): LoggedRunEvent => ({ seq, event: 'ai:token', payload: { token: `t${seq}` } });
const complete = (seq: number): LoggedRunEvent => ({
  seq,
  event: 'ai:complete',
  payload: { threadId: 'ai_t', fullText: 'full', usage: { totalTokens: 3 } },
});

function recorder(): RunEventListener & { received: LoggedRunEvent[]; lostCount: number } {
  const received: LoggedRunEvent[] = [];
  const listener = {
    received,
    lostCount: 0,
    events: (events: LoggedRunEvent[]) => received.push(...events),
    lost: () => listener.lostCount++,
  };
  return listener;
}

describe(`${RedisRunEventLog.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const connections: RedisConnection[] = [];
  const logs: RedisRunEventLog[] = [];

  /** One "instance": its own connections and log. */
  const instance = async (maxEventsPerRun = 1000) => {
    const connection = new RedisConnection(redis.url);
    connections.push(connection);
    await connection.ready(5_000);
    const log = new RedisRunEventLog(connection, { maxEventsPerRun, retentionMs: 60_000 }, 200);
    logs.push(log);
    return log;
  };

  const logged: LogEntry[] = [];

  beforeAll(async () => {
    setLogSink((entry) => logged.push(entry));
    redis = await TestRedisServer.start();
  });
  afterEach(async () => {
    for (const log of logs.splice(0)) log.close();
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
  });
  afterAll(async () => {
    resetLogSink();
    await redis.stop();
  });

  it('lets another instance replay a request after lastSeq and follow the live rest until its terminal event: no gap, no duplicate', async () => {
    const [a, b] = [await instance(), await instance()];
    const writer = a.open('run_a1', owner);
    writer.append({ seq: 1, event: 'ai:thread', payload: { threadId: 'ai_t1' } });
    writer.markLatest('ai_t1');
    for (const seq of [2, 3, 4]) writer.append(token(seq));
    await waitUntil(() => redis.cli('XLEN', 'graph-ai:run:run_a1') === '4');

    expect(await b.latest('ai_t1')).toEqual({ runKey: 'run_a1', owner });
    const listener = recorder();
    expect((await b.follow('run_a1', 2, listener)).kind).toBe('following');
    expect(listener.received.map((event) => event.seq)).toEqual([3, 4]);
    for (let seq = 5; seq < 40; seq++) writer.append(token(seq));
    writer.append(complete(40));
    await waitUntil(() => listener.received.at(-1)?.event === 'ai:complete');
    expect(listener.received.map((event) => event.seq)).toEqual(Array.from({ length: 38 }, (_, index) => index + 3));
    expect(listener.received.at(-1)).toEqual(complete(40));
    expect(listener.received[1]).toEqual(token(4));
  });

  it('writes a flush larger than one script call (many requests at once) completely and in order', async () => {
    const [a, b] = [await instance(), await instance()];
    const runKeys = Array.from({ length: 300 }, (_, index) => `run_many${index}`);
    const writers = runKeys.map((runKey) => a.open(runKey, owner));
    for (let seq = 1; seq <= 4; seq++) writers.forEach((writer) => writer.append(token(seq)));
    writers.forEach((writer) => writer.append(complete(5)));
    await waitUntil(() => redis.cli('XLEN', 'graph-ai:run:run_many299') === '5');
    for (const runKey of [runKeys[0], runKeys[150], runKeys[299]]) {
      const listener = recorder();
      await b.follow(runKey, 0, listener);
      expect(listener.received.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it("names a request as its thread's latest only once its first event is written (a run takes the lease before its ai:thread)", async () => {
    const log = await instance();
    const writer = log.open('run_early', owner);
    writer.markLatest('ai_early');
    await sleep(50);
    expect(await log.latest('ai_early')).toBeNull();
    writer.append({ seq: 1, event: 'ai:thread', payload: { threadId: 'ai_early' } });
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:thread-run:ai_early') === '1');
    const listener = recorder();
    expect((await log.follow('run_early', 0, listener)).kind).toBe('following');
    expect(listener.received.map((event) => event.seq)).toEqual([1]);
  });

  it('keeps a running request for RUNNING_LOG_TTL_MS past the last heartbeat and a finished one for the retention, its pointer too', async () => {
    const log = await instance();
    const writer = log.open('run_ttl', owner);
    writer.markLatest('ai_ttl');
    writer.append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_ttl') === '1');
    const running = Number(redis.cli('PTTL', 'graph-ai:run:run_ttl'));
    expect(running).toBeGreaterThan(RUNNING_LOG_TTL_MS - 2_000);
    expect(running).toBeLessThanOrEqual(RUNNING_LOG_TTL_MS);
    writer.append(complete(2));
    await waitUntil(() => Number(redis.cli('PTTL', 'graph-ai:run:run_ttl')) > RUNNING_LOG_TTL_MS);
    expect(Number(redis.cli('PTTL', 'graph-ai:run:run_ttl'))).toBeLessThanOrEqual(60_000);
    expect(Number(redis.cli('PTTL', 'graph-ai:thread-run:ai_ttl'))).toBeLessThanOrEqual(60_000);
    expect(log.runningCount).toBe(0);
  });

  it('does not shorten the pointer of a newer request of the thread when an older one finishes', async () => {
    const log = await instance();
    const older = log.open('run_old', owner);
    older.markLatest('ai_two');
    older.append(token(1));
    const newer = log.open('run_new', owner);
    newer.markLatest('ai_two');
    newer.append(token(1));
    older.append(complete(2));
    await waitUntil(() => Number(redis.cli('PTTL', 'graph-ai:run:run_old')) > RUNNING_LOG_TTL_MS);
    expect(await log.latest('ai_two')).toEqual({ runKey: 'run_new', owner });
    expect(Number(redis.cli('PTTL', 'graph-ai:thread-run:ai_two'))).toBeGreaterThan(60 * 60_000);
  });

  it('answers gone for a request whose events are not kept, and trimmed when the events after lastSeq were dropped', async () => {
    const log = await instance(10);
    expect(await log.follow('run_unknown', 0, recorder())).toEqual({ kind: 'gone' });
    const writer = log.open('run_long', owner);
    for (let seq = 1; seq <= 500; seq++) writer.append(token(seq));
    await waitUntil(() => redis.cli('XRANGE', 'graph-ai:run:run_long', '500-0', '+').length > 0);
    expect(Number(redis.cli('XLEN', 'graph-ai:run:run_long'))).toBeLessThan(500);
    const outcome = await log.follow('run_long', 0, recorder());
    expect(outcome).toEqual({ kind: 'trimmed', firstKeptSeq: expect.any(Number) });
    const firstKept = (outcome as { firstKeptSeq: number }).firstKeptSeq;
    const listener = recorder();
    expect((await log.follow('run_long', firstKept - 1, listener)).kind).toBe('following');
    expect(listener.received[0].seq).toBe(firstKept);
    expect(listener.received.at(-1)!.seq).toBe(500);
  });

  it('ends a follow whose stream vanished (its instance died and stopped refreshing it)', async () => {
    const [a, b] = [await instance(), await instance()];
    a.open('run_dead', owner).append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_dead') === '1');
    const listener = recorder();
    await b.follow('run_dead', 1, listener);
    redis.cli('DEL', 'graph-ai:run:run_dead');
    await waitUntil(() => listener.lostCount === 1);
  });

  it('follows several requests at once on one blocking connection, each from its own seq', async () => {
    const [a, b] = [await instance(), await instance()];
    const writers = ['run_m1', 'run_m2', 'run_m3'].map((runKey) => a.open(runKey, owner));
    writers.forEach((writer) => writer.append(token(1)));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_m3') === '1');
    const listeners = await Promise.all(
      ['run_m1', 'run_m2', 'run_m3'].map(async (runKey) => {
        const listener = recorder();
        await b.follow(runKey, 1, listener);
        return listener;
      }),
    );
    writers.forEach((writer, index) => {
      for (let seq = 2; seq <= 5 + index; seq++) writer.append(token(seq));
      writer.append(complete(6 + index));
    });
    await waitUntil(() => listeners.every((listener) => listener.received.at(-1)?.event === 'ai:complete'));
    expect(listeners.map((listener) => listener.received.map((event) => event.seq))).toEqual([
      [2, 3, 4, 5, 6],
      [2, 3, 4, 5, 6, 7],
      [2, 3, 4, 5, 6, 7, 8],
    ]);
  });

  /** A request's outcome as the log reports it. */
  const outcomeRecorder = () => {
    const outcome = { refused: [] as string[], finished: 0 };
    return {
      outcome,
      handlers: { refused: (error: Error) => outcome.refused.push(error.message), finished: () => outcome.finished++ },
    };
  };

  it('reports a request finished once its terminal event is written', async () => {
    const log = await instance();
    const { outcome, handlers } = outcomeRecorder();
    const writer = log.open('run_done', owner, handlers);
    writer.append(token(1));
    writer.append(complete(2));
    await waitUntil(() => outcome.finished === 1);
    expect(outcome.refused).toEqual([]);
  });

  it('reports a request refused when Redis goes away, writes nothing more of it, and ends its followers', async () => {
    const [a, b] = [await instance(), await instance()];
    const { outcome, handlers } = outcomeRecorder();
    const writer = a.open('run_lost', owner, handlers);
    writer.append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_lost') === '1');
    const listener = recorder();
    await b.follow('run_lost', 1, listener);
    await redis.kill();
    try {
      writer.append(token(2));
      await waitUntil(() => outcome.refused.length === 1);
      writer.append(token(3)); // not written: the request logs locally now
      await waitUntil(() => listener.lostCount === 1, 5_000);
      expect(outcome.refused).toHaveLength(1);
      expect(a.runningCount).toBe(0);
      expect(logged.map((entry) => entry.event)).toEqual(
        expect.arrayContaining(['run_log_not_shared', 'run_log_follow_failed']),
      );
    } finally {
      await redis.restart();
    }
  });

  it('reports a request refused when a full Redis (maxmemory, noeviction) refuses the write, while it stays connected', async () => {
    const log = await instance();
    const { outcome, handlers } = outcomeRecorder();
    const writer = log.open('run_full', owner, handlers);
    writer.append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_full') === '1');
    redis.cli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    redis.cli('CONFIG', 'SET', 'maxmemory', '1'); // below what it holds already: full
    try {
      writer.append(token(2));
      await waitUntil(() => outcome.refused.length === 1);
      expect(outcome.refused[0]).toMatch(/OOM/);
      // The stream is deleted (DEL is allowed when full), so a rejoin elsewhere is told at once that it is not kept.
      await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_full') === '0');
      expect(await log.follow('run_full', 0, recorder())).toEqual({ kind: 'gone' });
    } finally {
      redis.cli('CONFIG', 'SET', 'maxmemory', '0');
    }
    writer.append(complete(3));
    await sleep(50);
    expect(redis.cli('EXISTS', 'graph-ai:run:run_full')).toBe('0');
    expect(outcome.finished).toBe(0);
  });

  it('reports a request refused on READONLY (a replica after a failover), and its connection reconnects once to find the primary', async () => {
    const log = await instance();
    const connection = connections.at(-1)!;
    const { outcome, handlers } = outcomeRecorder();
    const writer = log.open('run_replica', owner, handlers);
    writer.append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_replica') === '1');
    const before = await connection.commands.client('ID');
    // A replica of a primary that does not exist: it keeps serving reads, and refuses every write.
    redis.cli('REPLICAOF', '127.0.0.1', '1');
    try {
      writer.append(token(2));
      await waitUntil(() => outcome.refused.length === 1);
      expect(outcome.refused[0]).toMatch(/^READONLY/);
      // The reconnect starts after the refusal is reported: 'ready' may still be the old connection, whose
      // stream is closing, so ask for the id until a new connection answers.
      expect(await clientIdOnceReconnected(connection.commands, before)).not.toBe(before);
      expect(connection.isUp).toBe(true);
      const another = log.open('run_replica2', owner, outcomeRecorder().handlers);
      another.append(token(1));
      await sleep(100);
      // Throttled: the second READONLY within READONLY_RECONNECT_INTERVAL_MS does not reconnect again.
      expect(connection.commands.status).toBe('ready');
    } finally {
      redis.cli('REPLICAOF', 'NO', 'ONE');
    }
  });

  it('reports a request refused when its stream is gone mid-run (evicted, expired, Redis restarted empty), and never recreates it with a gap', async () => {
    const log = await instance();
    const { outcome, handlers } = outcomeRecorder();
    const writer = log.open('run_gone', owner, handlers);
    writer.append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_gone') === '1');
    redis.cli('DEL', 'graph-ai:run:run_gone');
    writer.append(token(2));
    await waitUntil(() => outcome.refused.length === 1);
    expect(redis.cli('EXISTS', 'graph-ai:run:run_gone')).toBe('0');
  });

  it('keeps a request shared when a write is caught by the command connection closing (a kill, an idle timeout): it is sent again', async () => {
    const log = await instance();
    const connection = connections.at(-1)!;
    const { outcome, handlers } = outcomeRecorder();
    const writer = log.open('run_killed', owner, handlers);
    writer.append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_killed') === '1');
    redis.cli('CLIENT', 'KILL', 'ID', String(await connection.commands.client('ID')));
    for (let seq = 2; seq <= 20; seq++) {
      writer.append(token(seq));
      await sleep(1);
    }
    writer.append(complete(21));
    await waitUntil(() => outcome.finished === 1 || outcome.refused.length > 0);
    expect(outcome.refused).toEqual([]);
    expect(redis.cli('XLEN', 'graph-ai:run:run_killed')).toBe('21');
  });

  it('skips an entry already written (a write resent after a reconnection) instead of failing the request', async () => {
    const log = await instance();
    const { outcome, handlers } = outcomeRecorder();
    const writer = log.open('run_resent', owner, handlers);
    writer.append(token(1));
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_resent') === '1');
    // What a resent script call meets: the entry of seq 2 already there.
    redis.cli('XADD', 'graph-ai:run:run_resent', '2-0', 'e', 'ai:token', 'p', JSON.stringify({ token: 't2' }));
    writer.append(token(2));
    writer.append(complete(3));
    await waitUntil(() => outcome.finished === 1);
    expect(outcome.refused).toEqual([]);
    expect(redis.cli('XLEN', 'graph-ai:run:run_resent')).toBe('3');
  });
});

async function clientIdOnceReconnected(
  commands: RedisConnection['commands'],
  before: unknown,
  timeoutMs = 5_000,
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const id: unknown = await commands.client('ID').catch(() => before);
    if (id !== before || Date.now() > deadline) return id;
    await sleep(20);
  }
}

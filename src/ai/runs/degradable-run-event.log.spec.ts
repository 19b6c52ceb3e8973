import { TestRedisServer } from '../../../test/support/test-redis.server';
import { waitUntil } from '../../../test/support/wait-until';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { RedisConnection } from '../../redis/redis-connection';
import { DegradableRunEventLog } from './degradable-run-event.log';
import { InMemoryRunEventLog } from './in-memory-run-event.log';
import { RedisRunEventLog } from './redis-run-event.log';
import { LoggedRunEvent, RunEventListener } from './run-event.log';

const owner = { workspace: 'default', userId: 'ada' };
const limits = { maxEventsPerRun: 1000, retentionMs: 60_000 };
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

describe(`${DegradableRunEventLog.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const connections: RedisConnection[] = [];
  const shared: RedisRunEventLog[] = [];

  /** One "instance": its connection, its shared log, its memory, and the composite the gateway writes to. */
  const instance = async () => {
    const connection = new RedisConnection(redis.url);
    connections.push(connection);
    await connection.ready(5_000);
    const redisLog = new RedisRunEventLog(connection, limits, 200);
    shared.push(redisLog);
    const memory = new InMemoryRunEventLog(limits);
    return { log: new DegradableRunEventLog(connection, redisLog, memory), memory, connection };
  };

  beforeAll(async () => {
    setLogSink(() => undefined);
    redis = await TestRedisServer.start();
  });
  afterEach(async () => {
    redis.cli('CONFIG', 'SET', 'maxmemory', '0');
    for (const log of shared.splice(0)) log.close();
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
  });
  afterAll(async () => {
    resetLogSink();
    await redis.stop();
  });

  it('keeps a request going on its local copy when a full Redis refuses its writes: a rejoin here replays every event once, in order', async () => {
    const { log } = await instance();
    const writer = log.open('run_full', owner);
    writer.append({ seq: 1, event: 'ai:thread', payload: { threadId: 'ai_full' } });
    writer.markLatest('ai_full');
    for (const seq of [2, 3]) writer.append(token(seq));
    await waitUntil(() => redis.cli('XLEN', 'graph-ai:run:run_full') === '3');

    redis.cli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    redis.cli('CONFIG', 'SET', 'maxmemory', '1'); // full: every write refused, the connection stays up
    for (let seq = 4; seq < 20; seq++) writer.append(token(seq));
    const early = recorder();
    await waitUntil(() => redis.cli('EXISTS', 'graph-ai:run:run_full') === '0', 5_000, 'the shared stream dropped');
    expect(await log.latest('ai_full')).toEqual({ runKey: 'run_full', owner });
    expect((await log.follow('run_full', 2, early)).kind).toBe('following');
    for (let seq = 20; seq < 30; seq++) writer.append(token(seq));
    writer.append(complete(30));

    await waitUntil(() => early.received.at(-1)?.event === 'ai:complete');
    expect(early.received.map((event) => event.seq)).toEqual(Array.from({ length: 28 }, (_, index) => index + 3));
    expect(early.lostCount).toBe(0);
    const late = recorder();
    expect((await log.follow('run_full', 0, late)).kind).toBe('following');
    expect(late.received.map((event) => event.seq)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
  });

  it('drops its local copy once the terminal event is written to Redis: the shared log is complete', async () => {
    const a = await instance();
    const b = await instance();
    const writer = a.log.open('run_shared', owner);
    writer.append({ seq: 1, event: 'ai:thread', payload: { threadId: 'ai_shared' } });
    writer.markLatest('ai_shared');
    writer.append(token(2));
    expect(a.memory.has('run_shared')).toBe(true);
    writer.append(complete(3));
    await waitUntil(() => !a.memory.has('run_shared'));
    for (const each of [a, b]) {
      expect(await each.log.latest('ai_shared')).toEqual({ runKey: 'run_shared', owner });
      const listener = recorder();
      await each.log.follow('run_shared', 0, listener);
      expect(listener.received.map((event) => event.seq)).toEqual([1, 2, 3]);
    }
  });

  it('logs a request started while Redis is down in memory only', async () => {
    const { log, memory, connection } = await instance();
    await redis.kill();
    try {
      await waitUntil(() => !connection.isUp);
      const writer = log.open('run_alone', owner);
      writer.append(token(1));
      writer.markLatest('ai_alone');
      writer.append(complete(2));
      expect(memory.has('run_alone')).toBe(true);
      expect(await log.latest('ai_alone')).toEqual({ runKey: 'run_alone', owner });
    } finally {
      await redis.restart();
    }
  });
});

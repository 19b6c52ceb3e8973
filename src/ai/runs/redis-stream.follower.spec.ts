import { TestRedisServer } from '../../../test/support/test-redis.server';
import { waitUntil } from '../../../test/support/wait-until';
import { LogEntry } from '../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { QuietRedis } from '../../redis/redis-client';
import { RedisStreamFollower } from './redis-stream.follower';
import { LoggedRunEvent } from './run-event.log';

describe(`${RedisStreamFollower.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const clients: QuietRedis[] = [];
  /** A client like the service's (no offline queue); `lazy`: not connected until told. */
  const client = (lazy = false) => {
    const created = new QuietRedis(redis.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: lazy,
    });
    clients.push(created);
    return created;
  };
  const ready = (created: QuietRedis) =>
    created.status === 'ready' ? Promise.resolve() : new Promise((resolve) => created.once('ready', resolve));

  const logged: LogEntry[] = [];

  beforeAll(async () => {
    setLogSink((entry) => logged.push(entry));
    redis = await TestRedisServer.start();
  });
  afterEach(() => {
    for (const created of clients.splice(0)) created.disconnect();
  });
  afterAll(async () => {
    resetLogSink();
    await redis.stop();
  });

  it('waits for its blocking connection when a follow comes before that connection is ready, instead of ending it as lost', async () => {
    const blocking = client(true);
    const commands = client();
    await ready(commands);
    const follower = new RedisStreamFollower(blocking, commands, 200);
    const received: LoggedRunEvent[] = [];
    let lost = 0;
    await commands.xadd('graph-ai:run:early', '1-0', 'e', 'ai:token', 'p', JSON.stringify({ token: 'a' }));

    follower.add('graph-ai:run:early', 0, { events: (events) => received.push(...events), lost: () => lost++ });
    expect(blocking.status).not.toBe('ready');
    await blocking.connect();
    await commands.xadd('graph-ai:run:early', '2-0', 'e', 'ai:complete', 'p', JSON.stringify({ fullText: 'a' }));

    await waitUntil(() => received.at(-1)?.event === 'ai:complete' || lost > 0, 5_000, 'the follow ended');
    expect(lost).toBe(0);
    expect(received.map((event) => event.seq)).toEqual([1, 2]);
    follower.close();
  });

  it('loses nothing when its blocking connection is closed (CLIENT KILL, an idle timeout): it reads on from each seq once reconnected', async () => {
    const blocking = new QuietRedis(redis.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt) => (attempt === 1 ? 300 : 100), // the kill lands while nothing is connected
    });
    clients.push(blocking);
    const commands = client();
    await Promise.all([ready(blocking), ready(commands)]);
    const follower = new RedisStreamFollower(blocking, commands, 200);
    const received: LoggedRunEvent[] = [];
    let lost = 0;
    const add = (seq: number, event = 'ai:token') =>
      commands.xadd('graph-ai:run:killed', `${seq}-0`, 'e', event, 'p', JSON.stringify({ token: `t${seq}` }));
    await add(1);
    follower.add('graph-ai:run:killed', 0, { events: (events) => received.push(...events), lost: () => lost++ });
    await waitUntil(() => received.length === 1);
    const id = String(await blocking.client('ID'));
    redis.cli('CLIENT', 'KILL', 'ID', id);
    for (const seq of [2, 3, 4]) await add(seq);
    await add(5, 'ai:complete');
    await waitUntil(() => received.at(-1)?.event === 'ai:complete' || lost > 0, 5_000, 'the follow ended');
    expect(lost).toBe(0);
    expect(received.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    follower.close();
  });

  it('ends its followers as lost when the connection does not become ready within its block time', async () => {
    const blocking = client(true); // never connected
    const commands = client();
    await ready(commands);
    const follower = new RedisStreamFollower(blocking, commands, 100);
    let lost = 0;
    follower.add('graph-ai:run:never', 0, { events: () => undefined, lost: () => lost++ });
    await waitUntil(() => lost === 1, 5_000, 'the follower gave up');
    expect(follower.size).toBe(0);
    expect(logged.find((entry) => entry.event === 'run_log_follow_failed')).toMatchObject({ followers: 1 });
  });
});

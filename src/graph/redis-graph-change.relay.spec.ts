import { setTimeout as sleep } from 'node:timers/promises';
import { TestRedisServer } from '../../test/support/test-redis.server';
import { waitUntil } from '../../test/support/wait-until';
import { resetLogSink, setLogSink } from '../observability/logger';
import { RedisConnection } from '../redis/redis-connection';
import { GraphChangeEvent } from './graph-change.event';
import { GraphChangeNotifier } from './graph-change.notifier';
import { GRAPH_CHANGES_CHANNEL, RedisGraphChangeRelay } from './redis-graph-change.relay';

describe(`${RedisGraphChangeRelay.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const connections: RedisConnection[] = [];

  const instance = async () => {
    const connection = new RedisConnection(redis.url);
    connections.push(connection);
    await connection.ready(5_000);
    const notifier = new GraphChangeNotifier();
    const events: GraphChangeEvent[] = [];
    notifier.subscribe((event) => events.push(event));
    new RedisGraphChangeRelay(connection, notifier);
    // Subscribed once Redis counts this instance's subscriber (a fixed pause is too short on a loaded machine).
    const subscribers = connections.length;
    await waitUntil(
      () => Number(redis.cli('PUBSUB', 'NUMSUB', GRAPH_CHANGES_CHANNEL).split('\n')[1]) >= subscribers,
      5_000,
      'subscribed',
    );
    return { notifier, events };
  };

  beforeAll(async () => {
    setLogSink(() => undefined);
    redis = await TestRedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    resetLogSink();
    await redis.stop();
  });

  it('notifies saved changes and imports of one instance on the others, as remote events, and relays nothing else', async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    a.notifier.notify({ kind: 'stored', workspace: 'w', graphKey: 'g', nodeKeys: ['n1'] });
    a.notifier.notify({ kind: 'live', workspace: 'w', graphKey: 'g' });
    b.notifier.notify({ kind: 'imported', workspace: 'w', graphKey: 'h' });
    await waitUntil(() => c.events.length >= 2 && a.events.length >= 3, 5_000, 'the relayed events');
    await sleep(100); // nothing else arrives
    expect(c.events).toEqual([
      { kind: 'stored', workspace: 'w', graphKey: 'g', nodeKeys: ['n1'], remote: true },
      { kind: 'imported', workspace: 'w', graphKey: 'h', remote: true },
    ]);
    // Each instance sees its own events once, and the other's once, as remote: a remote event is never sent again.
    expect(a.events).toEqual([
      { kind: 'stored', workspace: 'w', graphKey: 'g', nodeKeys: ['n1'] },
      { kind: 'live', workspace: 'w', graphKey: 'g' },
      { kind: 'imported', workspace: 'w', graphKey: 'h', remote: true },
    ]);
    expect(b.events).toHaveLength(2);
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import { TestRedisServer } from '../../../test/support/test-redis.server';
import { waitUntil } from '../../../test/support/wait-until';
import { AppError } from '../../errors/app-error';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { RedisConnection } from '../../redis/redis-connection';
import { GraphChangeEvent } from '../graph-change.event';
import { GraphChangeNotifier } from '../graph-change.notifier';
import { GraphNode } from '../graph.types';
import { LiveGraphChanges } from './live-graph-changes';
import { LiveOverlayRegistry } from './live-overlay.registry';
import { RedisLiveOverlayWriter } from './redis-live-overlay.writer';

const WS = 'default';
const GRAPH = 'g1';
const node = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  _key: key,
  graphKey: GRAPH,
  type: 'api-call',
  sheet: '0',
  posX: 0,
  posY: 0,
  ...extra,
});
const changes = (partial: Partial<LiveGraphChanges>): LiveGraphChanges => ({
  upsertNodes: [],
  deleteNodes: [],
  upsertEdges: [],
  deleteEdges: [],
  ...partial,
});

/** What a replica shows of a graph, in a comparable form. */
function stateOf(registry: LiveOverlayRegistry, graphKey = GRAPH): object {
  const overlay = registry.get(WS, graphKey);
  if (!overlay) return {};
  return {
    nodes: Object.fromEntries([...overlay.nodes].sort(([a], [b]) => a.localeCompare(b))),
    deletedNodes: [...overlay.deletedNodes].sort(),
    edges: [...overlay.edges.keys()].sort(),
    deletedEdges: [...overlay.deletedEdges].sort(),
  };
}

describe(`${RedisLiveOverlayWriter.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const connections: RedisConnection[] = [];

  const writers: RedisLiveOverlayWriter[] = [];

  /** One "instance": its connection, replica, notifier and writer (repairs tried every 100 ms). */
  const instance = async (maxEntriesPerGraph = 100, idleTtlMs?: number) => {
    const connection = new RedisConnection(redis.url);
    connections.push(connection);
    await connection.ready(5_000);
    const registry = new LiveOverlayRegistry({ maxEntriesPerGraph, ...(idleTtlMs ? { idleTtlMs } : {}) });
    const notifier = new GraphChangeNotifier();
    const events: GraphChangeEvent[] = [];
    notifier.subscribe((event) => events.push(event));
    const writer = new RedisLiveOverlayWriter(connection, registry, notifier, 100);
    writers.push(writer);
    await sleep(50); // subscribed
    return { registry, writer, events, connection };
  };
  const hash = `graph-ai:overlay:${WS}:${GRAPH}`;

  beforeAll(async () => {
    setLogSink(() => undefined);
    redis = await TestRedisServer.start();
  });
  beforeEach(() => redis.cli('FLUSHALL'));
  afterEach(async () => {
    redis.cli('CONFIG', 'SET', 'maxmemory', '0');
    redis.cli('REPLICAOF', 'NO', 'ONE');
    for (const writer of writers.splice(0)) writer.onApplicationShutdown();
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
  });
  afterAll(async () => {
    resetLogSink();
    await redis.stop();
  });

  it('shows a change made on one instance to the others, which clear their retrieval cache (a live event); its own replica has it at once', async () => {
    const [a, b] = [await instance(), await instance()];
    // Documents go through as they are: an empty array stays an array, a float keeps every digit.
    const moved = node('root', { posX: 0.1 + 0.2, data: { list: [], nested: { empty: {} } } });
    expect(await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [moved], deleteNodes: ['old'] }))).toBe(2);
    expect(a.registry.get(WS, GRAPH)?.nodes.get('root')).toEqual(moved);
    await waitUntil(() => b.registry.get(WS, GRAPH) !== undefined);
    expect(stateOf(b.registry)).toEqual(stateOf(a.registry));
    expect(b.events).toEqual([{ kind: 'live', workspace: WS, graphKey: GRAPH }]);
    expect(a.events).toEqual([]); // the feed notifies its own instance
  });

  it('holds the per-graph limit for every instance at once: nothing is applied past it', async () => {
    const [a, b] = [await instance(3), await instance(3)];
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n1'), node('n2')] }));
    const refused = b.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n3'), node('n4')] }));
    await expect(refused).rejects.toThrow(AppError);
    await expect(refused).rejects.toMatchObject({ code: 'payload_too_large', details: { limit: 3, entries: 4 } });
    await waitUntil(() => b.registry.get(WS, GRAPH)?.entryCount === 2);
    expect(a.registry.get(WS, GRAPH)?.entryCount).toBe(2);
    expect(await b.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n1', { posX: 5 }), node('n3')] }))).toBe(3);
  });

  it('forgets saved keys and clears an imported graph on every instance', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n1'), node('n2')], deleteEdges: ['e9'] }));
    await waitUntil(() => b.registry.get(WS, GRAPH)?.entryCount === 3);
    expect(await b.writer.forget(WS, GRAPH, ['n1'], ['e9'])).toBe(1);
    await waitUntil(() => a.registry.get(WS, GRAPH)?.entryCount === 1);
    await a.writer.clear(WS, GRAPH);
    await waitUntil(() => b.registry.get(WS, GRAPH) === undefined);
    expect(a.registry.get(WS, GRAPH)).toBeUndefined();
  });

  it('converges when instances change one graph concurrently, and an instance started later loads what exists', async () => {
    const [a, b] = [await instance(), await instance()];
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? a : b).writer.apply(
          WS,
          GRAPH,
          changes({ upsertNodes: [node(`n${index % 7}`, { posX: index })], deleteNodes: [`d${index}`] }),
        ),
      ),
    );
    const late = await instance();
    await waitUntil(() => [a, b, late].every((each) => each.registry.get(WS, GRAPH)?.entryCount === 27));
    expect(stateOf(b.registry)).toEqual(stateOf(a.registry));
    expect(stateOf(late.registry)).toEqual(stateOf(a.registry));
  });

  it("serves alone while Redis is down (the change stays on its instance) and takes Redis's state back when Redis returns", async () => {
    const [a, b] = [await instance(), await instance()];
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('shared')] }));
    await waitUntil(() => b.registry.get(WS, GRAPH) !== undefined);
    await redis.kill();
    try {
      expect(await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('alone')] }))).toBe(2);
      expect(a.registry.get(WS, GRAPH)?.nodes.has('alone')).toBe(true);
      expect(b.registry.get(WS, GRAPH)?.nodes.has('alone')).toBe(false);
    } finally {
      await redis.restart();
    }
    // The restarted Redis is empty: every replica reloads that, then sharing goes on.
    await waitUntil(() => a.registry.get(WS, GRAPH) === undefined && b.registry.get(WS, GRAPH) === undefined, 10_000);
    await b.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('again')] }));
    await waitUntil(() => a.registry.get(WS, GRAPH)?.nodes.has('again') === true);
  });

  it('keeps sharing after the overlay expired in Redis while idle: the next change starts a new epoch that every replica takes', async () => {
    const [a, b] = [await instance(100, 400), await instance(100, 400)];
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('before')] }));
    await waitUntil(() => b.registry.get(WS, GRAPH)?.nodes.has('before') === true);
    await waitUntil(() => redis.cli('EXISTS', hash) === '0', 5_000, 'the hash expired');
    await sleep(50); // the replicas expired too (same idle time)

    expect(await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('after')] }))).toBe(1);
    expect(redis.cli('HGET', hash, '_v')).toBe('1');
    await waitUntil(() => b.registry.get(WS, GRAPH)?.nodes.has('after') === true, 2_000, 'B took the change');
    expect(stateOf(b.registry)).toEqual(stateOf(a.registry));
    expect(stateOf(a.registry)).toMatchObject({ nodes: { after: expect.anything() } });
  });

  it('keeps sharing after the overlay vanished from Redis (evicted, a restart without persistence) while the replicas still hold it', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n1'), node('n2')] }));
    await b.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n3')] }));
    await waitUntil(() => a.registry.get(WS, GRAPH)?.entryCount === 3);
    redis.cli('DEL', hash); // what an eviction does: the replicas still hold n1..n3 at version 2

    await b.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n4')] }));
    // Redis's state is now n4 alone (version 1 of a new epoch): every replica shows exactly that.
    await waitUntil(() => a.registry.get(WS, GRAPH)?.nodes.has('n4') === true, 2_000, 'A took the change');
    expect(stateOf(a.registry)).toEqual(stateOf(b.registry));
    expect(Object.keys((stateOf(a.registry) as { nodes: object }).nodes)).toEqual(['n4']);
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('n5')] }));
    await waitUntil(() => b.registry.get(WS, GRAPH)?.entryCount === 2);
    expect(stateOf(b.registry)).toEqual(stateOf(a.registry));
  });

  it('repairs a replica that took a change a full Redis refused, once Redis takes writes again (no reconnection happens)', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('shared')] }));
    await waitUntil(() => b.registry.get(WS, GRAPH) !== undefined);
    redis.cli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    redis.cli('CONFIG', 'SET', 'maxmemory', '1');
    try {
      expect(await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('alone')] }))).toBe(2);
      await sleep(300); // still refused: this instance keeps what it took
      expect(Object.keys((stateOf(a.registry) as { nodes: object }).nodes)).toEqual(['alone', 'shared']);
      expect(redis.cli('HEXISTS', hash, 'n:alone')).toBe('0');
    } finally {
      redis.cli('CONFIG', 'SET', 'maxmemory', '0');
    }
    await waitUntil(() => a.registry.get(WS, GRAPH)?.nodes.has('alone') === false, 3_000, 'A repaired');
    expect(stateOf(a.registry)).toEqual(stateOf(b.registry));
    expect(Object.keys((stateOf(a.registry) as { nodes: object }).nodes)).toEqual(['shared']);
  });

  it('repairs a replica that took changes a read-only Redis refused, on its next change that Redis takes', async () => {
    const [a, b] = [await instance(), await instance()];
    const other = 'g2';
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('shared')] }));
    await waitUntil(() => b.registry.get(WS, GRAPH) !== undefined);
    redis.cli('REPLICAOF', '127.0.0.1', '1');
    try {
      await a.writer.clear(WS, GRAPH);
      await a.writer.apply(WS, other, changes({ upsertNodes: [node('lost', { graphKey: other })] }));
      expect(a.registry.get(WS, GRAPH)).toBeUndefined();
      expect(b.registry.get(WS, GRAPH)).toBeDefined();
    } finally {
      redis.cli('REPLICAOF', 'NO', 'ONE');
    }
    // Its command connection reconnected on READONLY: wait until it answers again.
    for (let answered = false; !answered;)
      answered = await a.connection.commands.ping().then(
        () => true,
        () => sleep(20).then(() => false),
      );
    await a.writer.apply(WS, GRAPH, changes({ upsertNodes: [node('next')] }));
    await waitUntil(() => b.registry.get(WS, GRAPH)?.nodes.has('next') === true);
    expect(stateOf(a.registry)).toEqual(stateOf(b.registry));
    expect(Object.keys((stateOf(a.registry) as { nodes: object }).nodes)).toEqual(['next', 'shared']);
    await waitUntil(() => a.registry.get(WS, other) === undefined, 3_000, 'the other graph repaired too');
  });
});

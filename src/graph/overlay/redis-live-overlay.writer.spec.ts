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

  /** One "instance": its connection, replica, notifier and writer. */
  const instance = async (maxEntriesPerGraph = 100) => {
    const connection = new RedisConnection(redis.url);
    connections.push(connection);
    await connection.ready(5_000);
    const registry = new LiveOverlayRegistry({ maxEntriesPerGraph });
    const notifier = new GraphChangeNotifier();
    const events: GraphChangeEvent[] = [];
    notifier.subscribe((event) => events.push(event));
    const writer = new RedisLiveOverlayWriter(connection, registry, notifier);
    await sleep(50); // subscribed
    return { registry, writer, events };
  };

  beforeAll(async () => {
    setLogSink(() => undefined);
    redis = await TestRedisServer.start();
  });
  beforeEach(() => redis.cli('FLUSHALL'));
  afterEach(async () => {
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
});

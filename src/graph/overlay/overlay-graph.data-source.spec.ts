import { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InMemoryGraphDataSource } from '../../../test/support/in-memory-graph-data-source';
import { seededRandom } from '../../../test/support/seeded-random';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphChangeEvent } from '../graph-change.event';
import { GraphChangeNotifier } from '../graph-change.notifier';
import { EdgeDirection } from '../graph-data-source';
import { GraphDocument, GraphEdge, GraphNode } from '../graph.types';
import { SqliteGraphStore } from '../sqlite/sqlite-graph.store';
import { LiveGraphChanges } from './live-graph-changes';
import { LiveOverlayRegistry } from './live-overlay.registry';
import { OverlayGraphDataSource } from './overlay-graph.data-source';

const WS = 'default';
const DEMO = nbaWorkflowDemo.graph._key;
const changes = (partial: Partial<LiveGraphChanges>): LiveGraphChanges => ({
  upsertNodes: [],
  deleteNodes: [],
  upsertEdges: [],
  deleteEdges: [],
  ...partial,
});
const demoNode = (key: string): GraphNode =>
  structuredClone(nbaWorkflowDemo.nodes.find((node) => node._key === key) as GraphNode);
const edge = (key: string, source: string, target: string, graphKey = DEMO): GraphEdge => ({
  _key: key,
  graphKey,
  sheet: '0',
  source,
  sourceHandle: 'R-0',
  target,
  targetHandle: 'L-0',
});
const keys = (items: Array<{ _key: string }>) => items.map((item) => item._key);

describe(OverlayGraphDataSource.name, () => {
  let dataDir: string;
  let db: Database;
  let store: SqliteGraphStore;
  let overlays: LiveOverlayRegistry;
  let notifier: GraphChangeNotifier;
  let source: OverlayGraphDataSource;

  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'overlay-data-source-'));
    db = openSqliteDatabase(dataDir);
    store = new SqliteGraphStore(db);
    await store.importGraph(WS, structuredClone(nbaWorkflowDemo));
    overlays = new LiveOverlayRegistry();
    notifier = new GraphChangeNotifier();
    source = new OverlayGraphDataSource(store.forWorkspace(WS), overlays, notifier);
  });

  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers exactly like the store when the graph has no overlay', async () => {
    const plain = store.forWorkspace(WS);
    overlays.apply(WS, 'another-graph', changes({ deleteNodes: ['fetch-api'] }));
    expect(await source.getNodes(DEMO)).toEqual(await plain.getNodes(DEMO));
    expect(await source.getEdges(DEMO)).toEqual(await plain.getEdges(DEMO));
    expect(await source.searchNodes(DEMO, 'fetch players api', 5)).toEqual(
      await plain.searchNodes(DEMO, 'fetch players api', 5),
    );
    expect(await source.getNeighborhood(DEMO, 'root', 2, 'any')).toEqual(
      await plain.getNeighborhood(DEMO, 'root', 2, 'any'),
    );
  });

  it('lets an upserted node win over the stored one, everywhere', async () => {
    const edited = { ...demoNode('filter-active'), posX: 999, data: { minGames: 25, note: 'quarantine injured' } };
    overlays.apply(WS, DEMO, changes({ upsertNodes: [edited] }));

    expect(await source.getNodeByKey(DEMO, 'filter-active')).toEqual(edited);
    expect((await source.getNodes(DEMO)).find((node) => node._key === 'filter-active')).toEqual(edited);
    expect(keys(await source.getNodes(DEMO))).toEqual(keys(await store.forWorkspace(WS).getNodes(DEMO)));
    expect(await source.getNodesByKeys(DEMO, ['root', 'filter-active', 'root'])).toEqual([demoNode('root'), edited]);
    const neighbourhood = await source.getNeighborhood(DEMO, 'fetch-api', 1, 'out');
    expect(neighbourhood.nodes.find((node) => node._key === 'filter-active')).toEqual(edited);
  });

  it('adds upserted nodes that the store does not have, in their sheet', async () => {
    const created: GraphNode = {
      _key: 'notify-slack',
      graphKey: DEMO,
      type: 'api-call',
      sheet: '1',
      posX: 0,
      posY: 0,
      data: { url: 'https://hooks.slack.example' },
    };
    overlays.apply(WS, DEMO, changes({ upsertNodes: [created] }));
    expect(keys(await source.getNodes(DEMO, '1'))).toEqual(['sort-stats', 'disconnected-note', 'notify-slack']);
    expect(keys(await source.getNodes(DEMO, '0'))).not.toContain('notify-slack');
    expect(await source.getNodeByKey(DEMO, 'notify-slack')).toEqual(created);
    expect(await source.getNeighborhood(DEMO, 'notify-slack', 2, 'any')).toEqual({ nodes: [created], edges: [] });
  });

  it('moves a node between sheets when its upsert says so', async () => {
    overlays.apply(WS, DEMO, changes({ upsertNodes: [{ ...demoNode('sort-stats'), sheet: '0' }] }));
    expect(keys(await source.getNodes(DEMO, '1'))).toEqual(['disconnected-note']);
    expect(keys(await source.getNodes(DEMO, '0'))).toContain('sort-stats');
  });

  it('hides a deleted node everywhere, with every edge touching it', async () => {
    overlays.apply(WS, DEMO, changes({ deleteNodes: ['fetch-api'] }));

    expect(await source.getNodeByKey(DEMO, 'fetch-api')).toBeNull();
    expect(keys(await source.getNodes(DEMO))).not.toContain('fetch-api');
    // The first visible nodes, in the graph's order: with a limit too, with or without unsaved changes.
    expect(await source.getNodes(DEMO, undefined, 3)).toEqual((await source.getNodes(DEMO)).slice(0, 3));
    const stored = store.forWorkspace(WS);
    expect(await stored.getNodes(DEMO, '0', 2)).toEqual((await stored.getNodes(DEMO, '0')).slice(0, 2));
    expect(await source.getNodesByKeys(DEMO, ['fetch-api', 'root'])).toEqual([demoNode('root')]);
    const edges = await source.getEdges(DEMO);
    expect(edges.filter((candidate) => candidate.source === 'fetch-api' || candidate.target === 'fetch-api')).toEqual(
      [],
    );
    expect(await source.getEdgesOfNode(DEMO, 'root', 'any')).toEqual(
      (await store.forWorkspace(WS).getEdgesOfNode(DEMO, 'root', 'any')).filter(
        (candidate) => candidate.target !== 'fetch-api',
      ),
    );
    expect(await source.getEdgesOfNode(DEMO, 'fetch-api', 'any')).toEqual([]);
    expect(keys((await source.searchNodes(DEMO, 'fetch api nba players', 20)).map((hit) => hit.node))).not.toContain(
      'fetch-api',
    );
    // root's only way to the rest of the flow went through fetch-api.
    const walk = await source.getNeighborhood(DEMO, 'root', 3, 'out');
    expect(keys(walk.nodes)).toEqual(['root']);
    expect(await source.getNeighborhood(DEMO, 'fetch-api', 2, 'any')).toEqual({ nodes: [], edges: [] });
  });

  it('hides deleted edges and walks upserted ones, de-duplicating edges by key', async () => {
    const shortcut = edge('root-to-display', 'root', 'display-html');
    const rewired = {
      ...(nbaWorkflowDemo.edges.find(
        (candidate) => candidate.source === 'fetch-api' && candidate.target === 'error-handler',
      ) as GraphEdge),
      target: 'return',
    };
    const deleted = nbaWorkflowDemo.edges.find((candidate) => candidate.source === 'entry-form') as GraphEdge;
    overlays.apply(WS, DEMO, changes({ upsertEdges: [shortcut, rewired], deleteEdges: [deleted._key] }));

    const edges = await source.getEdges(DEMO);
    expect(new Set(keys(edges)).size).toBe(edges.length);
    expect(keys(edges)).not.toContain(deleted._key);
    expect(edges.find((candidate) => candidate._key === rewired._key)).toEqual(rewired);
    expect(keys(edges)).toContain('root-to-display');
    expect(keys(await source.getEdgesOfNode(DEMO, 'error-handler', 'in'))).toEqual([]);
    expect(keys(await source.getEdgesOfNode(DEMO, 'return', 'in'))).toEqual(expect.arrayContaining([rewired._key]));

    const walk = await source.getNeighborhood(DEMO, 'root', 1, 'out');
    expect(keys(walk.nodes)).toEqual(['root', 'fetch-api', 'display-html']);
    expect(keys(walk.edges).sort()).toEqual(['root-to-display', 'root-to-fetch-api'].sort());
    const fromEntry = await source.getNeighborhood(DEMO, 'entry-form', 3, 'any');
    expect(keys(fromEntry.nodes)).toEqual(['entry-form']);
  });

  it('finds upserted nodes by search and ranks an exact key match first', async () => {
    const created: GraphNode = {
      _key: 'quarantine-injured',
      graphKey: DEMO,
      type: 'filter',
      sheet: '0',
      posX: 0,
      posY: 0,
      process: 'next(0, incoming[0].data.players.filter((player) => !player.injured));',
      data: { description: 'Quarantine injured players before the standings are computed' },
    };
    overlays.apply(WS, DEMO, changes({ upsertNodes: [created] }));
    expect((await source.searchNodes(DEMO, 'injured players quarantine', 5))[0].node).toEqual(created);
    expect((await source.searchNodes(DEMO, 'quarantine-injured', 5))[0].node._key).toBe('quarantine-injured');
    const hits = await source.searchNodes(DEMO, 'players', 20);
    expect(keys(hits.map((hit) => hit.node))).toContain('quarantine-injured');
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
  });

  it('scopes a search to one sheet: store hits of other sheets, overlay nodes of other sheets and nodes moved away are left out', async () => {
    const onSheet = (key: string, sheet: string): GraphNode => ({
      _key: key,
      graphKey: DEMO,
      type: 'filter',
      sheet,
      posX: 0,
      posY: 0,
      data: { description: 'Quarantine injured players' },
    });
    const moved = { ...((await store.forWorkspace(WS).getNodeByKey(DEMO, 'filter-active')) as GraphNode), sheet: '7' };
    overlays.apply(
      WS,
      DEMO,
      changes({ upsertNodes: [onSheet('quarantine-a', '0'), onSheet('quarantine-b', '9'), moved] }),
    );
    const inSheet0 = keys(
      (await source.searchNodes(DEMO, 'quarantine injured players filter', 20, { sheet: '0' })).map((hit) => hit.node),
    );
    expect(inSheet0).toContain('quarantine-a');
    expect(inSheet0).not.toContain('quarantine-b');
    expect(inSheet0).not.toContain('filter-active');
    const inSheet9 = keys(
      (await source.searchNodes(DEMO, 'quarantine injured players', 20, { sheet: '9' })).map((hit) => hit.node),
    );
    expect(inSheet9).toEqual(['quarantine-b']);
  });

  it('still returns maxResults hits when the overlay hides more store hits than that', async () => {
    const query = 'players data incoming next';
    const top = (await store.forWorkspace(WS).searchNodes(DEMO, query, 10)).map((hit) => hit.node._key);
    expect(top.length).toBeGreaterThanOrEqual(5);
    overlays.apply(WS, DEMO, changes({ deleteNodes: top.slice(0, 3) }));
    const hits = await source.searchNodes(DEMO, query, 2);
    expect(hits.map((hit) => hit.node._key)).toEqual(top.slice(3, 5));
  });

  it('searches a changed node by its new content, and keeps the stored score of a node that only moved', async () => {
    const before = await store.forWorkspace(WS).searchNodes(DEMO, 'sort points assists', 5);
    expect(before[0].node._key).toBe('sort-stats');
    const moved = { ...demoNode('sort-stats'), posX: 5_000 };
    overlays.apply(WS, DEMO, changes({ upsertNodes: [moved] }));
    const afterMove = await source.searchNodes(DEMO, 'sort points assists', 5);
    expect(afterMove[0]).toEqual({ node: moved, score: before[0].score });

    const rewritten = {
      ...demoNode('sort-stats'),
      process: 'next(0, { rebounds: incoming[0].data.rebounds });',
      data: { top: 3 },
    };
    overlays.apply(WS, DEMO, changes({ upsertNodes: [rewritten] }));
    expect(keys((await source.searchNodes(DEMO, 'points assists', 5)).map((hit) => hit.node))).not.toContain(
      'sort-stats',
    );
    expect((await source.searchNodes(DEMO, 'rebounds', 5))[0].node).toEqual(rewritten);
  });

  it('drops vector hits of deleted nodes and of nodes whose content changed, keeps moved ones', async () => {
    const model = 'test-model';
    const unit = (index: number) => Float32Array.from({ length: 4 }, (_, position) => (position === index ? 1 : 0.1));
    await store.saveEmbeddings(WS, DEMO, [
      { nodeKey: 'fetch-api', vector: unit(0), model, hash: 'h1' },
      { nodeKey: 'filter-active', vector: unit(0), model, hash: 'h2' },
      { nodeKey: 'sort-stats', vector: unit(0), model, hash: 'h3' },
    ]);
    const moved = { ...demoNode('sort-stats'), posY: 77 };
    overlays.apply(
      WS,
      DEMO,
      changes({
        deleteNodes: ['fetch-api'],
        upsertNodes: [{ ...demoNode('filter-active'), data: { minGames: 1 } }, moved],
      }),
    );
    const hits = await source.searchNodesByVector(DEMO, { vector: unit(0), model, minScore: 0.1 }, 2);
    expect(hits).toHaveLength(1);
    expect(hits[0].node).toEqual(moved);
  });

  it('writes through to the store and tells the notifier which nodes changed', async () => {
    const events: GraphChangeEvent[] = [];
    notifier.subscribe((event) => events.push(event));
    const created: GraphNode = {
      _key: 'n1',
      graphKey: DEMO,
      type: 'filter',
      sheet: '0',
      posX: 0,
      posY: 0,
      process: 'next(0, 1);',
    };
    await source.applyChanges(DEMO, {
      instructions: [{ nodeKey: 'root', op: 'set', path: ['data', 'label'], value: 'Start' }],
      nodesToCreate: [created],
      edgesToCreate: [],
      nodeKeysToDelete: [],
      edgeKeysToDelete: [],
    });
    await source.deleteNode(DEMO, 'disconnected-note');
    expect(await store.forWorkspace(WS).getNodeByKey(DEMO, 'n1')).toEqual(created);
    expect(events).toEqual([
      { kind: 'stored', workspace: WS, graphKey: DEMO, nodeKeys: ['n1', 'root'] },
      { kind: 'stored', workspace: WS, graphKey: DEMO, nodeKeys: [], deletedNodeKeys: ['disconnected-note'] },
    ]);
  });

  describe('against a reference built from the merged graph', () => {
    const GRAPH = 'random';

    function randomCase(seed: number): { stored: GraphDocument; live: LiveGraphChanges; merged: GraphDocument } {
      const next = seededRandom(seed);
      const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
      const node = (key: string): GraphNode => ({
        _key: key,
        graphKey: GRAPH,
        type: 'filter',
        sheet: next() < 0.5 ? '0' : '1',
        posX: 0,
        posY: 0,
        data: { word: `w${key}` },
      });
      const nodes = Array.from({ length: 30 }, (_, index) => node(`n${index}`));
      const edges: GraphEdge[] = Array.from({ length: 55 }, (_, index) => ({
        ...edge(`e${index}`, pick(nodes)._key, pick(nodes)._key, GRAPH),
        sheet: '0',
      }));
      const stored: GraphDocument = {
        graph: { _key: GRAPH, workspace: WS, name: 'random', sheetsList: { '0': 'a', '1': 'b' } },
        nodes,
        edges,
        nodeConfigs: [],
      };

      const deleteNodes = [...new Set(Array.from({ length: 4 }, () => pick(nodes)._key))];
      const alive = nodes.filter((candidate) => !deleteNodes.includes(candidate._key));
      const created = Array.from({ length: 4 }, (_, index) => node(`new${index}`));
      const upsertNodes = [
        ...created,
        ...alive.slice(0, 3).map((candidate) => ({ ...candidate, posX: 1, data: { word: 'changed' } })),
      ];
      const targets = [...alive, ...created];
      const deleteEdges = [...new Set(Array.from({ length: 8 }, () => pick(edges)._key))];
      const upsertEdges = [
        ...Array.from({ length: 10 }, (_, index) => ({
          ...edge(`live${index}`, pick(targets)._key, pick(targets)._key, GRAPH),
        })),
        ...edges
          .filter((candidate) => !deleteEdges.includes(candidate._key))
          .slice(0, 5)
          .map((candidate) => ({ ...candidate, target: pick(targets)._key })),
      ];
      const live: LiveGraphChanges = { upsertNodes, deleteNodes, upsertEdges, deleteEdges };

      const nodesByKey = new Map(nodes.map((candidate) => [candidate._key, candidate]));
      for (const key of deleteNodes) nodesByKey.delete(key);
      for (const candidate of upsertNodes) nodesByKey.set(candidate._key, candidate);
      const edgesByKey = new Map(edges.map((candidate) => [candidate._key, candidate]));
      for (const key of deleteEdges) edgesByKey.delete(key);
      for (const candidate of upsertEdges) edgesByKey.set(candidate._key, candidate);
      const mergedEdges = [...edgesByKey.values()].filter(
        (candidate) => nodesByKey.has(candidate.source) && nodesByKey.has(candidate.target),
      );
      return { stored, live, merged: { ...stored, nodes: [...nodesByKey.values()], edges: mergedEdges } };
    }

    it.each([1, 2, 3, 4, 5])(
      'matches the reference for nodes, edges and every neighbourhood (seed %i)',
      async (seed) => {
        const { stored, live, merged } = randomCase(seed);
        await store.importGraph(WS, stored);
        overlays.apply(WS, GRAPH, live);
        const reference = new InMemoryGraphDataSource(WS, [merged]);
        const sorted = (items: Array<{ _key: string }>) => keys(items).sort();

        expect(sorted(await source.getNodes(GRAPH))).toEqual(sorted(await reference.getNodes(GRAPH)));
        expect(sorted(await source.getNodes(GRAPH, '1'))).toEqual(sorted(await reference.getNodes(GRAPH, '1')));
        expect(sorted(await source.getEdges(GRAPH))).toEqual(sorted(await reference.getEdges(GRAPH)));
        for (const candidate of [...stored.nodes, ...live.upsertNodes]) {
          for (const direction of ['in', 'out', 'any'] as EdgeDirection[]) {
            expect(sorted(await source.getEdgesOfNode(GRAPH, candidate._key, direction))).toEqual(
              sorted(await reference.getEdgesOfNode(GRAPH, candidate._key, direction)),
            );
            for (const depth of [1, 2, 3]) {
              const actual = await source.getNeighborhood(GRAPH, candidate._key, depth, direction);
              const expected = await reference.getNeighborhood(GRAPH, candidate._key, depth, direction);
              const inside = new Set(keys(expected.nodes));
              const joining = merged.edges.filter(
                (candidateEdge) => inside.has(candidateEdge.source) && inside.has(candidateEdge.target),
              );
              expect(keys(actual.nodes)[0]).toEqual(keys(expected.nodes)[0]);
              expect(sorted(actual.nodes)).toEqual(sorted(expected.nodes));
              expect(sorted(actual.edges)).toEqual(sorted(joining));
              expect(actual.nodes).toEqual(
                actual.nodes.map((found) => merged.nodes.find((mergedNode) => mergedNode._key === found._key)),
              );
            }
          }
        }
      },
    );
  });
});

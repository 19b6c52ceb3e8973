import { seededRandom } from '../../../test/support/seeded-random';
import { describeWithSharedFixtures, loadWorkflowFixture } from '../../../test/support/shared-fixtures';
import { SharedSqliteFile } from '../../../test/support/shared-sqlite-file';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../observability/logger';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { graphChangeSet } from '../graph-change-set';
import { GraphDocument, GraphNode } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { SqliteGraphStore } from './sqlite-graph.store';
import { NODE_CHANGES_KEPT } from './sqlite-graph.writer';
import { SqliteSearchIndexUpdater } from './sqlite-search-index.updater';

const WS = 'default';

describe(SqliteSearchIndexUpdater.name, () => {
  let file: SharedSqliteFile;
  let logs: LogEntry[];

  beforeAll(() => configureLogging({ level: 'debug' }));
  afterAll(() => configureLogging({ level: 'info' }));

  beforeEach(() => {
    file = SharedSqliteFile.create('search-index-updater-');
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });

  afterEach(() => {
    resetLogSink();
    file.close();
  });

  /** Another process on the same file: its own connection and its own store (its own indexes). */
  const openStore = (): SqliteGraphStore => file.openStore();

  const builds = () => logs.filter((entry) => entry.event === 'search_index_built');
  const updates = () => logs.filter((entry) => entry.event === 'search_index_updated');

  async function results(
    source: MutableGraphDataSource,
    graphKey: string,
    queries: string[],
  ): Promise<Array<Array<[string, number]>>> {
    return Promise.all(
      queries.map(async (query) =>
        (await source.searchNodes(graphKey, query, 40)).map((hit) => [hit.node._key, hit.score] as [string, number]),
      ),
    );
  }

  /** The hits (keys and exact scores) of a store that has just built its index from the file. */
  const freshResults = (graphKey: string, queries: string[]) =>
    results(openStore().forWorkspace(WS), graphKey, queries);

  /**
   * Random edits through two processes sharing the file (content, type, moves, deletions, creations,
   * a node deleted and created again under its key, edge-only writes); after every few, the long-lived
   * store's incrementally updated index must answer exactly (same keys, same scores, same order) as an
   * index built from scratch by a new store.
   */
  async function checkRandomEdits(document: GraphDocument, seed: number, steps: number): Promise<void> {
    const graphKey = document.graph._key;
    const local = openStore();
    await local.importGraph(WS, document);
    const mine = local.forWorkspace(WS);
    const other = openStore().forWorkspace(WS);
    const random = seededRandom(seed);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
    const words = [
      ...new Set(
        document.nodes.flatMap((node) =>
          `${node._key} ${node.type} ${typeof node.process === 'string' ? node.process : ''}`.split(/[^A-Za-z]+/),
        ),
      ),
    ]
      .filter((word) => word.length > 3)
      .slice(0, 400);
    const types = [...new Set(document.nodes.map((node) => node.type))];
    const phrase = (count: number) => Array.from({ length: count }, () => pick(words)).join(' ');
    const queries = Array.from({ length: 12 }, (_, index) =>
      index % 3 === 0 ? pick(document.nodes)._key : phrase(1 + (index % 3)),
    );

    expect(await results(mine, graphKey, queries)).toEqual(await freshResults(graphKey, queries));
    let created = 0;
    for (let step = 0; step < steps; step += 1) {
      const writer = random() < 0.5 ? mine : other;
      const nodes = await writer.getNodes(graphKey);
      const target = pick(nodes);
      const action = random();
      if (action < 0.3) {
        await writer.updateNode(graphKey, { ...target, process: phrase(8), data: { note: phrase(3) } });
      } else if (action < 0.4) {
        await writer.updateNode(graphKey, { ...target, type: pick(types) });
      } else if (action < 0.5) {
        await writer.applyChanges(
          graphKey,
          graphChangeSet({ instructions: [{ nodeKey: target._key, op: 'set', path: ['posX'], value: step }] }),
        );
      } else if (action < 0.62) {
        await writer.deleteNode(graphKey, target._key);
      } else if (action < 0.8) {
        created += 1;
        await writer.createNode(graphKey, { ...target, _key: `added-${created}`, process: phrase(6) });
      } else if (action < 0.9) {
        // Deleted and created again in one write: same key, new row (it now lists, and ties, last).
        await writer.applyChanges(
          graphKey,
          graphChangeSet({ nodeKeysToDelete: [target._key], nodesToCreate: [{ ...target, process: phrase(5) }] }),
        );
      } else {
        const edges = await writer.getEdges(graphKey);
        if (edges.length > 0) await writer.deleteEdge(graphKey, pick(edges)._key);
      }
      if (step % 5 === 4) expect(await results(mine, graphKey, queries)).toEqual(await freshResults(graphKey, queries));
    }
    expect(await results(mine, graphKey, queries)).toEqual(await freshResults(graphKey, queries));
  }

  it('keeps the index exactly as a fresh build through random edits of the demo graph by two processes, node by node', async () => {
    await checkRandomEdits(structuredClone(nbaWorkflowDemo), 7, 40);
    // One build for the long-lived store (first use); every other build is a fresh store's.
    const freshStores = file.storesOpened - 2;
    expect(builds()).toHaveLength(1 + freshStores);
    expect(builds().every((entry) => entry.reason === 'first_use')).toBe(true);
    expect(updates().length).toBeGreaterThanOrEqual(8);
  });

  describeWithSharedFixtures('on real workflows', () => {
    it.each([
      ['automate-lead-generation-personalized-outreach-with-apol.json', 11],
      ['automated-viral-content-engine-for-linkedin-x-with-ai-ge.json', 12],
    ])('keeps the index of %s exactly as a fresh build through random edits', async (file, seed) => {
      await checkRandomEdits(loadWorkflowFixture(file), seed, 60);
      expect(builds().filter((entry) => entry.reason !== 'first_use')).toEqual([]);
    });
  });

  it('sees a write by another process at the next search, updating one node', async () => {
    const local = openStore();
    await local.importGraph(WS, structuredClone(nbaWorkflowDemo));
    const mine = local.forWorkspace(WS);
    expect(await mine.searchNodes('nba-workflow', 'okapi', 5)).toEqual([]);
    const other = openStore().forWorkspace(WS);
    const note = (await other.getNodeByKey('nba-workflow', 'disconnected-note')) as GraphNode;
    await other.updateNode('nba-workflow', { ...note, data: { note: 'okapi sightings' } });

    expect((await mine.searchNodes('nba-workflow', 'okapi', 5)).map((hit) => hit.node._key)).toEqual([
      'disconnected-note',
    ]);
    expect(updates()).toEqual([expect.objectContaining({ graphKey: 'nba-workflow', nodes: 1 })]);
    expect(builds()).toHaveLength(1);
  });

  it('rebuilds when a revision in between has no record: an import, node configs, or history pruned away', async () => {
    const local = openStore();
    await local.importGraph(WS, structuredClone(nbaWorkflowDemo));
    const mine = local.forWorkspace(WS);
    await mine.searchNodes('nba-workflow', 'fetch', 5);
    const other = openStore();

    const renamed = structuredClone(nbaWorkflowDemo);
    renamed.nodeConfigs = [{ ...renamed.nodeConfigs[0], displayName: 'Okapi caller' }];
    await other.importGraph(WS, renamed);
    expect((await mine.searchNodes('nba-workflow', 'okapi caller', 5))[0]?.node.type).toBe(renamed.nodeConfigs[0]._key);

    const root = (await other.forWorkspace(WS).getNodeByKey('nba-workflow', 'root')) as GraphNode;
    for (let index = 0; index <= NODE_CHANGES_KEPT; index += 1) {
      await other.forWorkspace(WS).updateNode('nba-workflow', { ...root, posX: index });
    }
    expect(await mine.searchNodes('nba-workflow', 'fetch', 5)).not.toEqual([]);
    // An import stages the new graph under a new row (SqliteGraphImporter): its index is built as on first use.
    expect(builds().map((entry) => entry.reason)).toEqual(['first_use', 'first_use', 'unrecorded_changes']);
  });

  it('rebuilds when one write changes many nodes, and compacts after many removals', async () => {
    const document = structuredClone(nbaWorkflowDemo);
    const extra = Array.from({ length: 200 }, (_, index): GraphNode => ({
      ...document.nodes[0],
      _key: `extra-${index}`,
    }));
    document.nodes.push(...extra);
    const local = openStore();
    await local.importGraph(WS, document);
    const mine = local.forWorkspace(WS);
    await mine.searchNodes('nba-workflow', 'extra', 5);

    await mine.applyChanges(
      'nba-workflow',
      graphChangeSet({ nodeKeysToDelete: extra.slice(0, 70).map((node) => node._key) }),
    );
    expect((await mine.searchNodes('nba-workflow', 'extra 5', 300)).map((hit) => hit.node._key)).not.toContain(
      'extra-5',
    );
    expect(builds().map((entry) => entry.reason)).toEqual(['first_use', 'many_changes']);

    for (const node of extra.slice(70, 140)) {
      await mine.deleteNode('nba-workflow', node._key);
      await mine.searchNodes('nba-workflow', 'extra', 5);
    }
    expect(builds().map((entry) => entry.reason)).toEqual(['first_use', 'many_changes', 'compaction']);
    expect(await results(mine, 'nba-workflow', ['extra', 'fetch api'])).toEqual(
      await freshResults('nba-workflow', ['extra', 'fetch api']),
    );
  });
});

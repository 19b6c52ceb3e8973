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
import { SqliteVectorIndexUpdater } from './sqlite-vector-index.updater';

const WS = 'default';
const MODEL = 'test-embedder';
const OTHER_MODEL = 'other-embedder';
const DIMENSION = 24;

type Hits = Array<[string, number]>;

/** The demo graph with `extra` more nodes (copies of its first one under new keys). */
function demoWith(extra: number): GraphDocument {
  const document = structuredClone(nbaWorkflowDemo);
  document.nodes.push(
    ...Array.from({ length: extra }, (_, index): GraphNode => ({ ...document.nodes[0], _key: `extra-${index}` })),
  );
  return document;
}

describe(SqliteVectorIndexUpdater.name, () => {
  let file: SharedSqliteFile;
  let logs: LogEntry[];

  beforeAll(() => configureLogging({ level: 'debug' }));
  afterAll(() => configureLogging({ level: 'info' }));

  beforeEach(() => {
    file = SharedSqliteFile.create('vector-index-updater-');
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });

  afterEach(() => {
    resetLogSink();
    file.close();
  });

  /** Another process on the same file: its own connection and its own store (its own indexes). */
  const openStore = (): SqliteGraphStore => file.openStore();

  const builds = () => logs.filter((entry) => entry.event === 'vector_index_built');
  const updates = () => logs.filter((entry) => entry.event === 'vector_index_updated');

  async function results(source: MutableGraphDataSource, graphKey: string, queries: Float32Array[]): Promise<Hits[]> {
    return Promise.all(
      queries.map(async (vector, index) =>
        (
          await source.searchNodesByVector(graphKey, { vector, model: MODEL, minScore: index % 2 === 0 ? -1 : 0.2 }, 40)
        ).map((hit) => [hit.node._key, hit.score] as [string, number]),
      ),
    );
  }

  /** The hits (keys and exact scores) of a store that has just built its index from the file. */
  const freshResults = (graphKey: string, queries: Float32Array[]) =>
    results(openStore().forWorkspace(WS), graphKey, queries);

  /**
   * Random writes through two processes sharing the file: re-embeddings (some with another node's
   * vector: exact ties, some of another model, some zero), content changes (the vector is dropped,
   * re-embedded or not), moves, deletions, creations (embedded later, or carrying their own vector), a
   * node deleted and created again under its key (a new row: it ties last), edge-only writes; after
   * every few, the long-lived store's updated index must answer exactly (same keys, same scores, same
   * order) as an index built from scratch by a new store.
   */
  async function checkRandomWrites(document: GraphDocument, seed: number, steps: number): Promise<void> {
    const graphKey = document.graph._key;
    const local = openStore();
    await local.importGraph(WS, document);
    const mine = local.forWorkspace(WS);
    const otherStore = openStore();
    const random = seededRandom(seed);
    const centres = Array.from({ length: 5 }, () => Float32Array.from({ length: DIMENSION }, () => random() - 0.5));
    const vector = () =>
      Float32Array.from(centres[Math.floor(random() * centres.length)], (value) => value + (random() - 0.5) * 0.7);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
    const embed = (store: SqliteGraphStore, nodeKey: string, value: Float32Array, model = MODEL) =>
      store.saveEmbeddings(WS, graphKey, [{ nodeKey, vector: value, model, hash: `h${random()}` }]);
    await local.saveEmbeddings(
      WS,
      graphKey,
      document.nodes.map((node) => ({ nodeKey: node._key, vector: vector(), model: MODEL, hash: 'h' })),
    );
    const queries = Array.from({ length: 6 }, vector);

    expect(await results(mine, graphKey, queries)).toEqual(await freshResults(graphKey, queries));
    let created = 0;
    for (let step = 0; step < steps; step += 1) {
      const [source, store] = random() < 0.5 ? [mine, local] : [otherStore.forWorkspace(WS), otherStore];
      const nodes = await source.getNodes(graphKey);
      const target = pick(nodes);
      const action = random();
      if (action < 0.2) {
        await embed(store, target._key, vector());
      } else if (action < 0.27) {
        const twin = (await source.getNodeByKey(graphKey, nodes[0]._key)) as GraphNode;
        await embed(store, twin._key, centres[0]);
        await embed(store, target._key, Float32Array.from(centres[0]));
      } else if (action < 0.32) {
        await embed(store, target._key, vector(), OTHER_MODEL);
      } else if (action < 0.35) {
        await embed(store, target._key, new Float32Array(DIMENSION));
      } else if (action < 0.5) {
        await source.updateNode(graphKey, { ...target, process: `// changed at step ${step}` });
        if (random() < 0.6) await embed(store, target._key, vector());
      } else if (action < 0.6) {
        await source.applyChanges(
          graphKey,
          graphChangeSet({ instructions: [{ nodeKey: target._key, op: 'set', path: ['posX'], value: step }] }),
        );
      } else if (action < 0.7) {
        await source.deleteNode(graphKey, target._key);
      } else if (action < 0.8) {
        created += 1;
        await source.createNode(graphKey, { ...target, _key: `added-${created}` });
        if (random() < 0.7) await embed(store, `added-${created}`, vector());
      } else if (action < 0.85) {
        created += 1;
        await source.createNode(graphKey, {
          ...target,
          _key: `added-${created}`,
          embedding: Array.from(vector()),
          embeddingModel: MODEL,
        });
      } else if (action < 0.93) {
        // Deleted and created again in one write: same key, new row (it now ties last).
        await source.applyChanges(
          graphKey,
          graphChangeSet({
            nodeKeysToDelete: [target._key],
            nodesToCreate: [{ ...target, process: `// again ${step}` }],
          }),
        );
        await embed(store, target._key, vector());
      } else {
        const edges = await source.getEdges(graphKey);
        if (edges.length > 0) await source.deleteEdge(graphKey, pick(edges)._key);
      }
      if (step % 5 === 4) expect(await results(mine, graphKey, queries)).toEqual(await freshResults(graphKey, queries));
    }
    expect(await results(mine, graphKey, queries)).toEqual(await freshResults(graphKey, queries));
  }

  it('keeps the index exactly as a fresh build through random writes of the demo graph by two processes, node by node', async () => {
    await checkRandomWrites(demoWith(30), 7, 60);
    // One build for the long-lived store (first use); every other build is a fresh store's.
    const freshStores = file.storesOpened - 2;
    expect(builds()).toHaveLength(1 + freshStores);
    expect(builds().every((entry) => entry.reason === 'first_use')).toBe(true);
    expect(updates().length).toBeGreaterThanOrEqual(12);
  });

  it('keeps an index large enough for the int8 pre-scan (its copies and error bounds) exactly as a fresh build', async () => {
    await checkRandomWrites(demoWith(1_100), 19, 25);
    expect(builds().filter((entry) => entry.reason !== 'first_use')).toEqual([]);
  });

  describeWithSharedFixtures('on real workflows', () => {
    it.each([
      ['automate-lead-generation-personalized-outreach-with-apol.json', 11],
      ['automated-viral-content-engine-for-linkedin-x-with-ai-ge.json', 12],
    ])('keeps the index of %s exactly as a fresh build through random writes', async (file, seed) => {
      await checkRandomWrites(loadWorkflowFixture(file), seed, 60);
      expect(builds().filter((entry) => entry.reason !== 'first_use')).toEqual([]);
    });
  });

  it("sees another process's embedding write at the next search, updating one node", async () => {
    const local = openStore();
    await local.importGraph(WS, structuredClone(nbaWorkflowDemo));
    const keys = nbaWorkflowDemo.nodes.map((node) => node._key);
    const unit = (hot: number) => Float32Array.from({ length: 4 }, (_, index) => (index === hot ? 1 : 0.1));
    await local.saveEmbeddings(
      WS,
      'nba-workflow',
      keys.map((nodeKey, index) => ({ nodeKey, vector: unit(index % 3), model: MODEL, hash: 'h' })),
    );
    const mine = local.forWorkspace(WS);
    const query = { vector: unit(3), model: MODEL, minScore: 0.9 };
    expect(await mine.searchNodesByVector('nba-workflow', query, 5)).toEqual([]);

    await openStore().saveEmbeddings(WS, 'nba-workflow', [
      { nodeKey: 'disconnected-note', vector: unit(3), model: MODEL, hash: 'h2' },
    ]);
    const hits = await mine.searchNodesByVector('nba-workflow', query, 5);
    expect(hits.map((hit) => hit.node._key)).toEqual(['disconnected-note']);
    expect(hits[0].score).toBeCloseTo(1, 6);
    expect(updates()).toEqual([expect.objectContaining({ graphKey: 'nba-workflow', model: MODEL, nodes: 1 })]);
    expect(builds()).toHaveLength(1);
  });

  it('rebuilds when a revision in between has no record (an import, history pruned away), and catches up an index built empty', async () => {
    const local = openStore();
    const mine = local.forWorkspace(WS);
    const query = { vector: Float32Array.of(1, 0, 0), model: MODEL, minScore: 0.5 };
    await local.importGraph(WS, structuredClone(nbaWorkflowDemo));
    expect(await mine.searchNodesByVector('nba-workflow', query, 5)).toEqual([]);
    const other = openStore();
    await other.saveEmbeddings(WS, 'nba-workflow', [
      { nodeKey: 'root', vector: Float32Array.of(1, 0, 0), model: MODEL, hash: 'h' },
    ]);
    expect((await mine.searchNodesByVector('nba-workflow', query, 5)).map((hit) => hit.node._key)).toEqual(['root']);

    const imported = structuredClone(nbaWorkflowDemo);
    // fetch-api carries its own vector; root's content changed, so its vector is dropped.
    imported.nodes = imported.nodes.map((node) =>
      node._key === 'fetch-api'
        ? { ...node, embedding: [1, 0, 0], embeddingModel: MODEL }
        : node._key === 'root'
          ? { ...node, process: '// new' }
          : node,
    );
    await other.importGraph(WS, imported);
    expect((await mine.searchNodesByVector('nba-workflow', query, 5)).map((hit) => hit.node._key)).toEqual([
      'fetch-api',
    ]);

    for (let index = 0; index <= NODE_CHANGES_KEPT; index += 1) {
      await other.saveEmbeddings(WS, 'nba-workflow', [
        { nodeKey: 'root', vector: Float32Array.of(1, index, 0), model: MODEL, hash: `h${index}` },
      ]);
    }
    expect((await mine.searchNodesByVector('nba-workflow', query, 5)).map((hit) => hit.node._key)).toEqual([
      'fetch-api',
    ]);
    // An import stages the new graph under a new row (SqliteGraphImporter): its index is built as on first use.
    expect(builds().map((entry) => entry.reason)).toEqual(['first_use', 'first_use', 'unrecorded_changes']);
  });

  it('rebuilds when one write changes many vectors, and when a vector of another dimension arrives', async () => {
    const document = demoWith(200);
    const local = openStore();
    await local.importGraph(WS, document);
    const keys = document.nodes.map((node) => node._key);
    const random = seededRandom(3);
    const vector = (dimension = 8) => Float32Array.from({ length: dimension }, () => random() - 0.5);
    await local.saveEmbeddings(
      WS,
      'nba-workflow',
      keys.map((nodeKey) => ({ nodeKey, vector: vector(), model: MODEL, hash: 'h' })),
    );
    const mine = local.forWorkspace(WS);
    const query = { vector: vector(), model: MODEL, minScore: -1 };
    await mine.searchNodesByVector('nba-workflow', query, 5);

    await local.saveEmbeddings(
      WS,
      'nba-workflow',
      keys.slice(0, 70).map((nodeKey) => ({ nodeKey, vector: vector(), model: MODEL, hash: 'h2' })),
    );
    await mine.searchNodesByVector('nba-workflow', query, 5);
    await local.saveEmbeddings(WS, 'nba-workflow', [{ nodeKey: 'root', vector: vector(12), model: MODEL, hash: 'h3' }]);
    await mine.searchNodesByVector('nba-workflow', query, 5);
    expect(builds().map((entry) => entry.reason)).toEqual(['first_use', 'many_changes', 'not_updatable']);
    expect(await results(mine, 'nba-workflow', [query.vector])).toEqual(
      await freshResults('nba-workflow', [query.vector]),
    );
  });
});

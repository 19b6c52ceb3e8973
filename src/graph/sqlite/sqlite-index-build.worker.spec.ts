import * as path from 'node:path';
import { SharedSqliteFile } from '../../../test/support/shared-sqlite-file';
import { syntheticGraph } from '../../../test/support/synthetic-graph';
import { waitUntil } from '../../../test/support/wait-until';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../observability/logger';
import { graphChangeSet } from '../graph-change-set';
import { GraphDocument } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { SearchIndexNotReadyError } from '../search-index-not-ready.error';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { SqliteGraphStore, SqliteGraphStoreOptions } from './sqlite-graph.store';
import { SqliteIndexBuildWorker } from './sqlite-index-build.worker';

/** The thread runs the TypeScript sources: it is given the loader the test harness uses. */
const WITH_LOADER = ['--require', path.join(__dirname, '../../../test/support/swc-register.js')];
const WS = 'default';
const MODEL = 'test-model';
const QUERIES = ['invoice refund', 'customer', 'ledger audit report', 'webhook retry', 'n17 step'];
const offThread = (
  options: Partial<NonNullable<SqliteGraphStoreOptions['indexWorker']>> = {},
): SqliteGraphStoreOptions => ({
  indexWorker: { minNodes: 100, execArgv: WITH_LOADER, waitMs: 60_000, ...options },
});
const graphOf = (graphKey: string, count: number): GraphDocument => ({
  ...syntheticGraph(graphKey, count, 50),
  graph: { _key: graphKey, workspace: WS, name: graphKey, sheetsList: { '0': 'main' } },
});
/** 4 dimensions from the node key's number: deterministic, and different enough to rank. */
const vectorOf = (index: number) => Float32Array.of(1 + (index % 7), (index * 3) % 5, index % 2, 0.5);

async function textHits(source: MutableGraphDataSource, graphKey: string): Promise<Array<Array<[string, number]>>> {
  const hits: Array<Array<[string, number]>> = [];
  for (const query of QUERIES)
    hits.push((await source.searchNodes(graphKey, query, 30)).map((hit) => [hit.node._key, hit.score]));
  return hits;
}

async function vectorHits(source: MutableGraphDataSource, graphKey: string): Promise<Array<Array<[string, number]>>> {
  const hits: Array<Array<[string, number]>> = [];
  for (const vector of [Float32Array.of(1, 0, 0, 0), Float32Array.of(0, 1, 1, 0), Float32Array.of(3, 2, 0, 1)])
    hits.push(
      (await source.searchNodesByVector(graphKey, { vector, model: MODEL, minScore: -1 }, 30)).map((hit) => [
        hit.node._key,
        hit.score,
      ]),
    );
  return hits;
}

describe(`${SqliteIndexBuildWorker.name} (large graphs' indexes built off the event loop, snapshotted in the file)`, () => {
  let file: SharedSqliteFile;
  let logs: LogEntry[];
  const stores: Array<{ close(): Promise<void> }> = [];

  beforeAll(() => configureLogging({ level: 'debug' }));
  afterAll(() => configureLogging({ level: 'info' }));
  beforeEach(() => {
    file = SharedSqliteFile.create('index-worker-');
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    resetLogSink();
    file.close();
  });

  const open = (options: SqliteGraphStoreOptions = {}) => {
    const store = file.openStore(options);
    stores.push(store);
    return store;
  };
  const built = (event: string) => logs.filter((entry) => entry.event === event);

  it('indexes an import in the worker while it is staged, and answers exactly as an index built in this thread', async () => {
    const worker = open(offThread());
    expect(worker.buildsOffThread).toBe(true);
    await worker.importGraph(WS, graphOf('big', 600));
    const here = open();
    expect(await textHits(worker.forWorkspace(WS), 'big')).toEqual(await textHits(here.forWorkspace(WS), 'big'));
    expect(built('search_index_built')).toEqual([
      expect.objectContaining({ graphKey: 'big', nodes: 600, reason: 'import', source: 'worker' }),
      expect.objectContaining({ graphKey: 'big', nodes: 600, reason: 'first_use', source: 'this_thread' }),
    ]);
    // A small graph is built here, as before.
    await worker.importGraph(WS, graphOf('small', 20));
    await worker.forWorkspace(WS).searchNodes('small', 'invoice', 5);
    expect(built('search_index_built')[2]).toEqual(
      expect.objectContaining({ graphKey: 'small', source: 'this_thread' }),
    );
  });

  it('checkpoints the write-ahead log in the worker before the swap, so that no commit on the event loop copies the staged rows', async () => {
    const worker = open(offThread());
    await worker.importGraph(WS, graphOf('big', 600));
    const [checkpointed] = built('staged_import_checkpointed');
    expect(checkpointed).toEqual(expect.objectContaining({ graphKey: 'big' }));
    expect(checkpointed.walFrames).toBeGreaterThan(0);
    expect(checkpointed.checkpointedFrames).toBe(checkpointed.walFrames);
  });

  it("keeps the staging commits from checkpointing on the event loop: the worker checkpoints as rows come, and the connection's setting comes back", async () => {
    const db = openSqliteDatabase(file.dataDir);
    const store = new SqliteGraphStore(db, offThread());
    stores.push(store);
    const threshold = () => db.pragma('wal_autocheckpoint', { simple: true });
    const checkpointed: Array<{ walFrames: number; checkpointedFrames: number }> = [];
    const originalRun = SqliteIndexBuildWorker.prototype.run;
    const spy = jest.spyOn(SqliteIndexBuildWorker.prototype, 'run').mockImplementation(function (
      this: SqliteIndexBuildWorker,
      task,
    ) {
      const result = originalRun.call(this, task);
      if (task.kind === 'checkpoint') void result.then((frames) => checkpointed.push(frames as never));
      return result;
    });
    /** The connection's checkpoint threshold at every turn of the event loop until `work` settles, and its outcome. */
    const thresholdsDuring = async (work: Promise<unknown>) => {
      const seen: number[] = [];
      let done = false;
      const settled = work.then(
        () => ({ failure: null }),
        (failure: unknown) => ({ failure }),
      );
      void settled.finally(() => (done = true));
      while (!done) {
        seen.push(Number(threshold()));
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { seen, ...(await settled) };
    };
    try {
      const imported = await thresholdsDuring(store.importGraph(WS, graphOf('big', 2_600)));
      expect(imported.failure).toBeNull();
      expect(imported.seen).toContain(0);
      expect(threshold()).toBe(1000);
      // One checkpoint after 8 commits of 250 rows while staging, and the one before the swap.
      await waitUntil(() => checkpointed.length >= 2);
      expect(checkpointed.every((frames) => frames.checkpointedFrames > 0)).toBe(true);

      // Passes validation, then fails to serialize a node halfway through the staging: the import is aborted.
      const failing = graphOf('big', 2_600);
      failing.nodes[1_500].data = { count: BigInt(1) };
      const aborted = await thresholdsDuring(store.importGraph(WS, failing));
      expect(String(aborted.failure)).toMatch(/BigInt/);
      expect(aborted.seen).toContain(0);
      expect(threshold()).toBe(1000);
    } finally {
      spy.mockRestore();
    }
  });

  it("lets another process load the graph's snapshot instead of building it, then catch up on the changes recorded since", async () => {
    const importer = open(offThread());
    await importer.importGraph(WS, graphOf('big', 600));
    await importer.forWorkspace(WS).searchNodes('big', 'invoice', 5);
    await waitUntil(() => built('search_snapshot_saved').length === 1);

    const restarted = open(offThread());
    const here = open();
    expect(await textHits(restarted.forWorkspace(WS), 'big')).toEqual(await textHits(here.forWorkspace(WS), 'big'));
    expect(built('search_index_built').at(-2)).toEqual(
      expect.objectContaining({ graphKey: 'big', reason: 'first_use', source: 'snapshot' }),
    );

    // A few nodes changed by another process: the next process loads the snapshot, then applies just those.
    await here.forWorkspace(WS).applyChanges(
      'big',
      graphChangeSet({
        instructions: [{ nodeKey: 'n17', op: 'set', path: ['process'], value: '// okapi sightings' }],
        nodeKeysToDelete: ['n3'],
      }),
    );
    const later = open(offThread());
    expect(await textHits(later.forWorkspace(WS), 'big')).toEqual(await textHits(here.forWorkspace(WS), 'big'));
    expect((await later.forWorkspace(WS).searchNodes('big', 'okapi', 5)).map((hit) => hit.node._key)).toEqual(['n17']);
    expect(built('search_index_built').filter((entry) => entry.source === 'worker')).toHaveLength(1);
    expect(built('search_index_updated').length).toBeGreaterThan(0);
  });

  it("builds the index again when another write changed the workspace's node configs while the import was staged", async () => {
    const importer = open({ ...offThread(), importSliceMs: 0 });
    const other = open({ importSliceMs: 0 });
    const configs = [{ _key: 'code', workspace: WS, displayName: 'Okapi runner', category: 'logic', handles: {} }];
    // Both imports run at once: the small one's swap renames the type the big one's nodes use.
    await Promise.all([
      importer.importGraph(WS, graphOf('big', 600)),
      other.importGraph(WS, { ...graphOf('small', 3), nodeConfigs: configs } as GraphDocument),
    ]);
    expect(await textHits(importer.forWorkspace(WS), 'big')).toEqual(await textHits(open().forWorkspace(WS), 'big'));
    expect((await importer.forWorkspace(WS).searchNodes('big', 'okapi runner', 5)).length).toBe(5);
  });

  it('builds vector indexes in the worker and keeps them current by catch-ups, as one built in this thread', async () => {
    const worker = open(offThread());
    const document = graphOf('big', 600);
    await worker.importGraph(WS, document);
    const writes = (nodes: typeof document.nodes) =>
      worker.saveEmbeddings(
        WS,
        'big',
        nodes.map((node) => ({
          nodeKey: node._key,
          vector: vectorOf(Number(node._key.slice(1))),
          model: MODEL,
          hash: 'h',
        })),
      );
    await writes(document.nodes.slice(0, 300));
    const source = worker.forWorkspace(WS);
    await worker.prepareSearch(WS, 'big', MODEL);
    await writes(document.nodes.slice(300));
    const here = open();
    expect(await vectorHits(source, 'big')).toEqual(await vectorHits(here.forWorkspace(WS), 'big'));
    expect(built('vector_index_built')).toEqual([
      expect.objectContaining({ graphKey: 'big', nodes: 300, source: 'worker' }),
      expect.objectContaining({ graphKey: 'big', nodes: 600, source: 'this_thread' }),
    ]);
  });

  it('brings a kept vector index up to date after an embedding run, so the next question finds it current', async () => {
    const store = open(offThread());
    const document = graphOf('big', 1_500);
    await store.importGraph(WS, document);
    const source = store.forWorkspace(WS);
    const embedAll = () =>
      store.saveEmbeddings(
        WS,
        'big',
        document.nodes.map((node) => ({
          nodeKey: node._key,
          vector: vectorOf(Number(node._key.slice(1))),
          model: MODEL,
          hash: 'h',
        })),
      );
    // Not kept by this process: a refresh builds nothing.
    await embedAll();
    await store.refreshVectorIndex(WS, 'big', MODEL);
    expect(built('vector_index_built')).toEqual([]);

    await store.prepareSearch(WS, 'big', MODEL);
    await source.applyChanges(
      'big',
      graphChangeSet({
        instructions: document.nodes.map((node) => ({ nodeKey: node._key, op: 'set', path: ['data', 'v'], value: 2 })),
      }),
    );
    await embedAll();
    await store.refreshVectorIndex(WS, 'big', MODEL);
    expect(built('vector_index_built')).toEqual([
      expect.objectContaining({ graphKey: 'big', nodes: 1_500, reason: 'first_use', source: 'worker' }),
      expect.objectContaining({ graphKey: 'big', nodes: 1_500, reason: 'many_changes', source: 'worker' }),
    ]);
    const settled = logs.length;
    expect(await vectorHits(source, 'big')).toEqual(await vectorHits(open().forWorkspace(WS), 'big'));
    expect(
      logs
        .slice(settled)
        .filter(
          (entry) =>
            entry.event.startsWith('vector_index_') && entry.graphKey === 'big' && entry.source !== 'this_thread',
        ),
    ).toEqual([]);
  });

  it('answers a search during a build from the earlier index, or says the index is not ready, within its wait', async () => {
    const impatient = open(offThread({ waitMs: 0 }));
    const document = graphOf('big', 600);
    await impatient.importGraph(WS, document);
    const source = impatient.forWorkspace(WS);
    // The staged build is still crossing from the worker: nothing to answer with yet.
    await expect(source.searchNodes('big', 'invoice', 5)).rejects.toBeInstanceOf(SearchIndexNotReadyError);
    await impatient.prepareSearch(WS, 'big', null);
    const before = await textHits(source, 'big');

    // Many nodes changed by another process: the worker rebuilds; meanwhile the earlier index answers.
    await open()
      .forWorkspace(WS)
      .applyChanges(
        'big',
        graphChangeSet({
          instructions: document.nodes
            .slice(0, 400)
            .map((node) => ({ nodeKey: node._key, op: 'set' as const, path: ['process'], value: '// okapi' })),
        }),
      );
    expect(await textHits(source, 'big')).toEqual(before);
    await waitUntil(() => built('search_index_built').length === 2);
    expect((await source.searchNodes('big', 'okapi', 500)).length).toBe(400);

    // Vectors never wait for a build off the event loop: none yet, so not ready.
    await impatient.saveEmbeddings(WS, 'big', [{ nodeKey: 'n1', vector: vectorOf(1), model: MODEL, hash: 'h' }]);
    await expect(vectorHits(source, 'big')).rejects.toBeInstanceOf(SearchIndexNotReadyError);
    await waitUntil(() => built('vector_index_built').length === 1);
    expect((await vectorHits(source, 'big'))[0]).toEqual([['n1', expect.any(Number)]]);
  });

  it('builds in this thread when the worker cannot run', async () => {
    // No loader for the TypeScript sources: the thread fails to start.
    const broken = open(offThread({ execArgv: [] }));
    await broken.importGraph(WS, graphOf('big', 300));
    expect(await textHits(broken.forWorkspace(WS), 'big')).toEqual(await textHits(open().forWorkspace(WS), 'big'));
    expect(built('staged_search_index_failed')).toHaveLength(1);
    expect(built('search_index_built')[0]).toEqual(expect.objectContaining({ graphKey: 'big', source: 'this_thread' }));
  });

  it('prepares the largest graphs it finds at start, the most recently changed first, within its index budget', async () => {
    const importer = open();
    await importer.importGraph(WS, graphOf('older', 300));
    await importer.importGraph(WS, graphOf('newer', 400));
    await importer.importGraph(WS, graphOf('tiny', 10));
    const starting = open({ ...offThread(), indexCache: { maxIndexedNodes: 1_000 } });
    // BM25 and vectors: 800 indexed nodes for "newer", 600 for "older" would not fit.
    expect(await starting.prepareLargeGraphs(MODEL)).toBe(1);
    expect(built('search_prepared').map((entry) => entry.graphKey)).toEqual(['newer']);
    expect(await open(offThread()).prepareLargeGraphs(null)).toBe(2);
    expect(await open().prepareLargeGraphs(null)).toBe(0);
  });
});

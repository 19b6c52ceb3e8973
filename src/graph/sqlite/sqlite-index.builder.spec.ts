import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { syntheticGraph } from '../../../test/support/synthetic-graph';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphDocument, GraphNode } from '../graph.types';
import { NodeSearchIndex } from '../search/node-search.index';
import { VectorIndex } from '../search/vector.index';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { SqliteGraphStore } from './sqlite-graph.store';
import { SqliteIndexBuilder } from './sqlite-index.builder';
import { SqliteSearchSnapshotRepository } from './sqlite-search-snapshot.repository';

const WS = 'default';
const QUERIES = ['invoice refund', 'customer', 'ledger audit report', 'fetch api', 'API Call', 'n17 step'];

describe(SqliteIndexBuilder.name, () => {
  let dir: string;
  let db: Database;
  let store: SqliteGraphStore;
  let statements: SqliteGraphStatements;
  let builder: SqliteIndexBuilder;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'index-builder-'));
    db = openSqliteDatabase(dir);
    store = new SqliteGraphStore(db);
    statements = new SqliteGraphStatements(db);
    builder = new SqliteIndexBuilder(db, statements, new SqliteSearchSnapshotRepository(db, 4096));
  });
  afterEach(async () => {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const graphId = (graphKey: string) => statements.graphRef.get(WS, graphKey)?.id as number;
  const demo = (): GraphDocument => ({
    ...structuredClone(nbaWorkflowDemo),
    nodes: [...nbaWorkflowDemo.nodes, ...syntheticGraph('nba-workflow', 40).nodes],
  });
  /** The index this thread builds from the graph's stored nodes, in row order, with the workspace's configs. */
  const reference = async (graphKey: string) =>
    NodeSearchIndex.build(
      await store.forWorkspace(WS).getNodes(graphKey),
      await store.forWorkspace(WS).getNodeConfigs(),
    );

  it('builds the BM25 index of a graph as this thread would, with its revision and each node row id', async () => {
    await store.importGraph(WS, demo());
    const built = builder.buildSearchIndex(graphId('nba-workflow'));
    if (!built) throw new Error('expected an index');
    const index = NodeSearchIndex.fromPacked(built.packed);
    const expected = await reference('nba-workflow');
    for (const query of QUERIES) expect(index.search(query, 20)).toEqual(expected.search(query, 20));
    expect(built.revision).toBe(statements.graphRef.get(WS, 'nba-workflow')?.revision);
    expect(built.source).toBe('built');
    const rows = statements.nodeRowsPage.all(graphId('nba-workflow'), 0, -1);
    expect(Array.from(built.rowIds)).toEqual(rows.map((row) => row.id));
    expect(builder.buildSearchIndex(9999)).toBeNull();
  });

  it('stores a snapshot that any connection reads back as the same index, and reads only complete ones of its format', async () => {
    await store.importGraph(WS, demo());
    const id = graphId('nba-workflow');
    expect(builder.loadSearchSnapshot(id)).toBeNull();
    const built = builder.buildSearchIndex(id);
    if (!built) throw new Error('expected an index');
    const payload = builder.serializeSnapshot(built);
    expect(payload.length).toBeGreaterThan(4096 * 3);
    builder.saveSearchSnapshot(id, built.revision, payload);

    const other = openSqliteDatabase(dir);
    try {
      const reader = new SqliteIndexBuilder(
        other,
        new SqliteGraphStatements(other),
        new SqliteSearchSnapshotRepository(other),
      );
      const loaded = reader.loadSearchSnapshot(id);
      if (!loaded) throw new Error('expected a snapshot');
      expect(loaded.source).toBe('snapshot');
      expect(loaded.revision).toBe(built.revision);
      expect(Array.from(loaded.rowIds)).toEqual(Array.from(built.rowIds));
      const index = NodeSearchIndex.fromPacked(loaded.packed);
      const expected = NodeSearchIndex.fromPacked(built.packed);
      for (const query of QUERIES) expect(index.search(query, 20)).toEqual(expected.search(query, 20));
    } finally {
      other.close();
    }
    // Another format (another version of the code) is never read.
    db.prepare("UPDATE graph_search_snapshots SET format = 'older'").run();
    expect(builder.loadSearchSnapshot(id)).toBeNull();
  });

  it('indexes an import while it is staged, row by row as they are committed, and keeps it for its snapshot', async () => {
    const document = demo();
    // The staged build of a store with a hook on its importer: begin, rows, end as the importer calls them.
    const staged: { id?: number; revision?: number; built?: ReturnType<SqliteIndexBuilder['endStaged']> } = {};
    const hooked = new SqliteGraphStore(db, { importSliceMs: 0 });
    (hooked as unknown as { importer: { indexing: unknown } }).importer.indexing = {
      begin: ({ stagingId, configs }: { stagingId: number; configs: [] }) => {
        staged.id = stagingId;
        builder.beginStaged(stagingId, configs);
        return {
          rowsCommitted: () => builder.stagedRowsCommitted(stagingId),
          finish: async () => {
            staged.built = builder.endStaged(stagingId);
          },
          swappedIn: (revision: number) => (staged.revision = revision),
          abort: () => builder.abortStaged(stagingId),
        };
      },
    };
    await hooked.importGraph(WS, document);
    const id = staged.id as number;
    const built = staged.built;
    if (!built) throw new Error('expected an index');
    expect(id).toBe(graphId('nba-workflow'));
    expect(staged.revision).toBe(statements.graphRef.get(WS, 'nba-workflow')?.revision);
    const index = NodeSearchIndex.fromPacked(built.packed);
    const expected = await reference('nba-workflow');
    for (const query of QUERIES) expect(index.search(query, 20)).toEqual(expected.search(query, 20));
    expect(builder.endStaged(id)).toBeNull();

    const snapshot = builder.stagedSnapshotPayload(id, staged.revision as number);
    if (!snapshot) throw new Error('expected a snapshot payload');
    builder.saveSearchSnapshot(id, snapshot.revision, snapshot.payload);
    expect(builder.loadSearchSnapshot(id)?.revision).toBe(staged.revision);
    expect(builder.stagedSnapshotPayload(id, 1)).toBeNull();
  });

  it('forgets a staged build when its import is aborted', () => {
    builder.beginStaged(42, []);
    builder.abortStaged(42);
    expect(builder.endStaged(42)).toBeNull();
    expect(builder.stagedSnapshotPayload(42, 1)).toBeNull();
  });

  it('builds the vector index of one model from the stored vectors, as VectorIndex.build over them in row order', async () => {
    await store.importGraph(WS, demo());
    const nodes = await store.forWorkspace(WS).getNodes('nba-workflow');
    const vectors = nodes.map((node: GraphNode, index) => Float32Array.of(index % 3, (index * 7) % 5, 1));
    await store.saveEmbeddings(
      WS,
      'nba-workflow',
      nodes.map((node, index) => ({ nodeKey: node._key, vector: vectors[index], model: 'm', hash: 'h' })),
    );
    const built = builder.buildVectorIndex(graphId('nba-workflow'), 'm');
    if (!built) throw new Error('expected an index');
    const rows = statements.vectorsOfModelPage.all(graphId('nba-workflow'), 'm', 0, -1);
    const expected = VectorIndex.build(
      rows.map((row) => ({
        key: row.key,
        vector: vectors[nodes.findIndex((node) => node._key === row.key)],
        order: row.id,
      })),
    );
    const index = VectorIndex.fromPacked(built.packed);
    for (const query of [Float32Array.of(1, 0, 0), Float32Array.of(0, 1, 1)])
      expect(index.search(query, -1, 30)).toEqual(expected.search(query, -1, 30));
    expect(built.embeddingRevision).toBe(statements.graphRef.get(WS, 'nba-workflow')?.embeddingRevision);
    expect(builder.buildVectorIndex(graphId('nba-workflow'), 'other')?.packed.keys).toEqual([]);
  });
});

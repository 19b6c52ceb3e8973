import BetterSqlite3, { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { appErrorOf } from '../../../test/support/app-error-of';
import { syntheticGraph } from '../../../test/support/synthetic-graph';
import { openSqliteDatabase, SQLITE_FILE_NAME } from '../../database/sqlite/sqlite-database.opener';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphDocument, GraphNode } from '../graph.types';
import { SqliteGraphStore } from './sqlite-graph.store';

const DEMO = nbaWorkflowDemo.graph._key;
const WS = 'default';
const demo = (): GraphDocument => structuredClone(nbaWorkflowDemo);
const vector = (...values: number[]) => Float32Array.from(values);

describe(SqliteGraphStore.name, () => {
  let dataDir: string;
  let db: Database;
  let store: SqliteGraphStore;

  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'sqlite-graph-store-'));
    db = openSqliteDatabase(dataDir);
    store = new SqliteGraphStore(db);
    await store.importGraph(WS, demo());
  });

  afterEach(() => {
    if (db.open) db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const modelOf = async (nodeKey: string) =>
    (await store.getEmbeddingStates(WS, DEMO)).find((state) => state.nodeKey === nodeKey)?.model ?? null;

  it('keeps a vector when a node only moves, and drops it when its content changes', async () => {
    const source = store.forWorkspace(WS);
    await store.saveEmbeddings(WS, DEMO, [
      { nodeKey: 'root', vector: vector(1, 0), model: 'm', hash: 'h' },
      { nodeKey: 'fetch-api', vector: vector(0, 1), model: 'm', hash: 'h' },
    ]);
    const root = (await source.getNodeByKey(DEMO, 'root')) as GraphNode;
    await source.updateNode(DEMO, { ...root, posX: 1234, size: { width: 1, height: 1 } });
    await source.applyChanges(DEMO, {
      instructions: [{ nodeKey: 'fetch-api', op: 'set', path: ['posY'], value: 5, animatePos: true }],
      nodesToCreate: [],
      edgesToCreate: [],
      nodeKeysToDelete: [],
      edgeKeysToDelete: [],
    });
    expect(await modelOf('root')).toBe('m');
    expect(await modelOf('fetch-api')).toBe('m');

    await source.updateNode(DEMO, { ...root, process: 'next(0, {});' });
    await source.applyChanges(DEMO, {
      instructions: [{ nodeKey: 'fetch-api', op: 'set', path: ['data', 'timeoutMs'], value: 1 }],
      nodesToCreate: [],
      edgesToCreate: [],
      nodeKeysToDelete: [],
      edgeKeysToDelete: [],
    });
    expect(await modelOf('root')).toBeNull();
    expect(await modelOf('fetch-api')).toBeNull();
    expect(await source.searchNodesByVector(DEMO, { vector: vector(1, 1), model: 'm', minScore: -1 }, 5)).toEqual([]);
  });

  it("reads a large graph's embedding states in pages, in the graph's order, for its workspace only", async () => {
    const large = syntheticGraph('large', 4_500);
    await store.importGraph(WS, large);
    await store.importGraph('elsewhere', syntheticGraph('large', 3));
    await store.saveEmbeddings(WS, 'large', [
      { nodeKey: 'n2', vector: vector(1, 0), model: 'm', hash: 'h2' },
      { nodeKey: 'n4499', vector: vector(0, 1), model: 'm', hash: 'h4499' },
    ]);
    const states = await store.getEmbeddingStates(WS, 'large');
    expect(states.map((state) => state.nodeKey)).toEqual(large.nodes.map((node) => node._key));
    expect(states[2]).toEqual({ nodeKey: 'n2', model: 'm', hash: 'h2' });
    expect(states[4_499]).toEqual({ nodeKey: 'n4499', model: 'm', hash: 'h4499' });
    expect(states[3]).toEqual({ nodeKey: 'n3', model: null, hash: null });
    expect(await store.getEmbeddingStates('elsewhere', 'large')).toHaveLength(3);
    expect(await store.getEmbeddingStates(WS, 'absent')).toEqual([]);
  });

  it('stores the vector an imported node carries, and never returns it', async () => {
    const document = demo();
    Object.assign(document.nodes[2], { embedding: [0, 1, 0], embeddingModel: 'nodius-model', embeddingHash: 'abc' });
    await store.importGraph(WS, document);
    const source = store.forWorkspace(WS);
    const hits = await source.searchNodesByVector(
      DEMO,
      { vector: vector(0, 2, 0), model: 'nodius-model', minScore: 0.3 },
      5,
    );
    expect(hits.map((hit) => hit.node._key)).toEqual([document.nodes[2]._key]);
    expect(hits[0].node).not.toHaveProperty('embedding');
    expect(
      (await store.getEmbeddingStates(WS, DEMO)).find((state) => state.nodeKey === document.nodes[2]._key),
    ).toMatchObject({
      model: 'nodius-model',
      hash: 'abc',
    });
  });

  it("searches one sheet's vectors only when asked, and every node's limit of getNodes in the graph's order", async () => {
    const source = store.forWorkspace(WS);
    const nodes = await source.getNodes(DEMO);
    await store.saveEmbeddings(
      WS,
      DEMO,
      nodes.map((node, index) => ({ nodeKey: node._key, vector: vector(1, index), model: 'm', hash: 'h' })),
    );
    const query = { vector: vector(1, 0), model: 'm', minScore: -1 };
    const all = await source.searchNodesByVector(DEMO, query, 20);
    const sheetOne = await source.searchNodesByVector(DEMO, query, 20, { sheet: '1' });
    expect(sheetOne.length).toBeGreaterThan(0);
    expect(sheetOne).toEqual(all.filter((hit) => hit.node.sheet === '1'));
    expect(await source.searchNodesByVector(DEMO, query, 20, { sheet: 'absent' })).toEqual([]);
    expect(await source.getNodes(DEMO, undefined, 3)).toEqual(nodes.slice(0, 3));
  });

  it('rolls an import back when a write fails halfway, leaving the previous graph', async () => {
    const before = await store.exportGraph(WS, DEMO);
    const document = demo();
    document.graph.name = 'Half written';
    // Passes validation, then fails to serialize on the last node, after the others were inserted.
    document.nodes[8].data = { count: BigInt(1) };
    await expect(store.importGraph(WS, document)).rejects.toThrow(/BigInt/);
    expect(await store.exportGraph(WS, DEMO)).toEqual(before);
  });

  it('sees writes made by another connection to the same file (another process)', async () => {
    const source = store.forWorkspace(WS);
    expect(await source.searchNodes(DEMO, 'okapi', 5)).toEqual([]);
    const otherDb = openSqliteDatabase(dataDir);
    try {
      const other = new SqliteGraphStore(otherDb).forWorkspace(WS);
      const note = (await other.getNodeByKey(DEMO, 'disconnected-note')) as GraphNode;
      await other.updateNode(DEMO, { ...note, data: { note: 'okapi sightings' } });
      await other.deleteNode(DEMO, 'fetch-api');
    } finally {
      otherDb.close();
    }
    expect((await source.searchNodes(DEMO, 'okapi', 5)).map((hit) => hit.node._key)).toEqual(['disconnected-note']);
    expect((await source.searchNodes(DEMO, 'fetch api', 5)).map((hit) => hit.node._key)).not.toContain('fetch-api');
  });

  it('rebuilds the search index of every graph of a workspace when its node configs change', async () => {
    const source = store.forWorkspace(WS);
    expect(await source.searchNodes(DEMO, 'shuffler', 5)).toEqual([]);
    const other = demo();
    other.graph._key = 'other-graph';
    other.nodes = other.nodes.map((node) => ({ ...node, graphKey: 'other-graph' }));
    other.edges = other.edges.map((edge) => ({ ...edge, graphKey: 'other-graph' }));
    other.nodeConfigs = [{ _key: 'transform', workspace: WS, displayName: 'Shuffler' }];
    await store.importGraph(WS, other);
    expect((await source.searchNodes(DEMO, 'shuffler', 5))[0]?.node._key).toBe('sort-stats');
  });

  it('decodes the graph document and the node configs once per revision, shared and frozen', async () => {
    const source = store.forWorkspace(WS);
    const graph = await source.getGraph(DEMO);
    const configs = await source.getNodeConfigs();
    expect(await store.forWorkspace(WS).getGraph(DEMO)).toBe(graph);
    expect(await source.getNodeConfigs()).toBe(configs);
    expect(graph).toMatchObject({ _key: DEMO, sheetsList: nbaWorkflowDemo.graph.sheetsList });
    expect(configs.map((config) => config._key)).toEqual(
      nbaWorkflowDemo.nodeConfigs.map((config) => config._key).sort(),
    );
    expect(() => {
      (graph as { name: string }).name = 'changed';
    }).toThrow(/read.only/);
    expect(() => configs.push(configs[0])).toThrow(/not extensible/);
    expect(await store.forWorkspace('elsewhere').getGraph(DEMO)).toBeNull();

    // A node write moves the graph revision: the document is read again (same content).
    await source.deleteNode(DEMO, 'disconnected-note');
    const reread = await source.getGraph(DEMO);
    expect(reread).not.toBe(graph);
    expect(reread).toEqual(graph);
    expect(await source.getNodeConfigs()).toBe(configs);
  });

  it('sees a graph document and node configs written by another connection to the same file (another process)', async () => {
    const source = store.forWorkspace(WS);
    expect((await source.getGraph(DEMO))?.name).toBe(nbaWorkflowDemo.graph.name);
    const before = await source.getNodeConfigs();
    const otherDb = openSqliteDatabase(dataDir);
    try {
      const document = demo();
      document.graph.name = 'Renamed elsewhere';
      document.nodeConfigs = [{ ...document.nodeConfigs[0], displayName: 'Renamed type' }];
      await new SqliteGraphStore(otherDb).importGraph(WS, document);
    } finally {
      otherDb.close();
    }
    expect((await source.getGraph(DEMO))?.name).toBe('Renamed elsewhere');
    const after = await source.getNodeConfigs();
    expect(after).not.toBe(before);
    expect(after.find((config) => config._key === nbaWorkflowDemo.nodeConfigs[0]._key)?.displayName).toBe(
      'Renamed type',
    );
  });

  it("shares a question's decoded nodes, frozen, and reads a node again once the graph moved on here or in another process", async () => {
    const source = store.forWorkspace(WS);
    const neighbourhood = await source.getNeighborhood(DEMO, 'fetch-api', 1, 'any');
    const again = await source.getNeighborhood(DEMO, 'fetch-api', 2, 'any');
    const fetchApi = neighbourhood.nodes[0];
    expect(fetchApi._key).toBe('fetch-api');
    expect(again.nodes[0]).toBe(fetchApi);
    expect(again.nodes.length).toBeGreaterThan(neighbourhood.nodes.length);
    expect(() => {
      (fetchApi as { type: string }).type = 'changed';
    }).toThrow(/read.only/);

    await source.updateNode(DEMO, { ...fetchApi, process: 'next(1, {});' });
    const updated = (await source.getNeighborhood(DEMO, 'fetch-api', 1, 'any')).nodes[0];
    expect(updated.process).toBe('next(1, {});');

    const otherDb = openSqliteDatabase(dataDir);
    try {
      const other = new SqliteGraphStore(otherDb).forWorkspace(WS);
      await other.updateNode(DEMO, { ...updated, process: 'next(2, {});' });
      await other.deleteNode(DEMO, 'root');
    } finally {
      otherDb.close();
    }
    const seen = await source.getNeighborhood(DEMO, 'fetch-api', 2, 'any');
    expect(seen.nodes[0].process).toBe('next(2, {});');
    expect(seen.nodes.map((node) => node._key)).not.toContain('root');
    expect(await source.getNeighborhood(DEMO, 'root', 1, 'any')).toEqual({ nodes: [], edges: [] });
  });

  it('answers store_unavailable (retryable) when another process holds the write lock too long', async () => {
    db.pragma('busy_timeout = 50');
    const blocker = new BetterSqlite3(path.join(dataDir, SQLITE_FILE_NAME));
    blocker.exec('BEGIN IMMEDIATE');
    try {
      const error = await appErrorOf(store.forWorkspace(WS).deleteNode(DEMO, 'root'));
      expect(error).toMatchObject({ code: 'store_unavailable', retryable: true });
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    await store.forWorkspace(WS).deleteNode(DEMO, 'root');
    expect(await store.forWorkspace(WS).getNodeByKey(DEMO, 'root')).toBeNull();
  });

  it('reports itself down once the connection is closed', async () => {
    db.close();
    expect(await store.health()).toMatchObject({ status: 'down', kind: 'sqlite' });
  });
});

import { SharedSqliteFile } from '../../../test/support/shared-sqlite-file';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphDocument, GraphNode } from '../graph.types';
import { ABANDONED_STAGING_MS, SqliteGraphImporter } from './sqlite-graph.importer';

const WS = 'default';

function graphOf(graphKey: string, count: number, text = 'step'): GraphDocument {
  const nodes: GraphNode[] = Array.from({ length: count }, (_, index) => ({
    _key: `n${index}`,
    graphKey,
    type: 'code',
    sheet: '0',
    posX: index,
    posY: 0,
    process: `${text} ${index}`,
  }));
  const edges = nodes.slice(1).map((node, index) => ({
    _key: `e${index}`,
    graphKey,
    sheet: '0',
    source: `n${index}`,
    sourceHandle: 'R-0',
    target: node._key,
    targetHandle: 'L-0',
  }));
  return {
    graph: { _key: graphKey, workspace: WS, name: graphKey, sheetsList: { '0': 'main' } },
    nodes,
    edges,
    nodeConfigs: [],
  };
}

const countRows = (file: SharedSqliteFile, table: string): number => {
  const db = openSqliteDatabase(file.dataDir);
  try {
    return (db.prepare(`SELECT COUNT(*) AS count FROM ${table}`).get() as { count: number }).count;
  } finally {
    db.close();
  }
};

describe(SqliteGraphImporter.name, () => {
  let file: SharedSqliteFile;

  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());
  beforeEach(() => {
    file = SharedSqliteFile.create('graph-importer-');
  });
  afterEach(() => file.close());

  it('writes a large graph in many short transactions, while readers keep seeing the old graph until one swap', async () => {
    // A slice of 0 ms yields after every transaction, so the turns counted below do not depend on the machine's speed.
    const store = file.openStore({ importSliceMs: 0 });
    await store.importGraph(WS, graphOf('big', 10, 'old'));
    const reader = file.openStore().forWorkspace(WS);

    const seenDuring: number[] = [];
    let importing = true;
    const watch = async () => {
      while (importing) {
        seenDuring.push((await reader.getNodes('big')).length);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const watching = watch();
    await store.importGraph(WS, graphOf('big', 6_000, 'new'));
    importing = false;
    await watching;

    // The event loop turned many times during the import, and every read saw one whole graph: the old or the new.
    expect(seenDuring.length).toBeGreaterThan(5);
    expect(seenDuring.every((count) => count === 10 || count === 6_000)).toBe(true);
    expect(seenDuring[0]).toBe(10);
    expect((await reader.getNodes('big')).length).toBe(6_000);
    expect((await reader.getEdges('big')).length).toBe(5_999);
    // The old rows are gone, the graph is listed once.
    expect(countRows(file, 'graph_nodes')).toBe(6_000);
    expect(await store.listGraphs()).toEqual([{ workspace: WS, graphKey: 'big' }]);
  });

  it('keeps the vector of a node whose content did not change, and drops a changed one', async () => {
    const store = file.openStore();
    await store.importGraph(WS, structuredClone(nbaWorkflowDemo));
    await store.saveEmbeddings(WS, 'nba-workflow', [
      { nodeKey: 'root', vector: Float32Array.of(1, 0), model: 'm', hash: 'h' },
      { nodeKey: 'fetch-api', vector: Float32Array.of(0, 1), model: 'm', hash: 'h' },
    ]);
    const next = structuredClone(nbaWorkflowDemo);
    next.nodes = next.nodes.map((node) =>
      node._key === 'fetch-api' ? { ...node, process: '// rewritten' } : { ...node, posX: node.posX + 1 },
    );
    await store.importGraph(WS, next);
    const states = new Map(
      (await store.getEmbeddingStates(WS, 'nba-workflow')).map((state) => [state.nodeKey, state.model]),
    );
    expect(states.get('root')).toBe('m');
    expect(states.get('fetch-api')).toBeNull();
  });

  it('changes nothing when the document is refused', async () => {
    const store = file.openStore();
    await store.importGraph(WS, graphOf('g', 3));
    const broken = graphOf('g', 5);
    broken.edges.push({ ...broken.edges[0], _key: 'to-ghost', target: 'ghost' });
    await expect(store.importGraph(WS, broken)).rejects.toMatchObject({ code: 'bad_request' });
    expect((await store.forWorkspace(WS).getNodes('g')).length).toBe(3);
    expect(countRows(file, 'graphs')).toBe(1);
  });

  it('removes what a dead process left (a stale staged graph, a retired one) when a store opens the file, not a live import', () => {
    file.openStore();
    const db = openSqliteDatabase(file.dataDir);
    const insert = db.prepare(
      'INSERT INTO graphs (workspace, graph_key, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    const node = db.prepare(
      "INSERT INTO graph_nodes (graph_id, node_key, type, sheet, document) VALUES (?, ?, 'code', '0', '{}')",
    );
    const stale = Date.now() - ABANDONED_STAGING_MS - 1_000;
    const ids = [
      Number(insert.run(WS, '/import/dead', '{}', stale, stale).lastInsertRowid),
      Number(insert.run(WS, '/retired/7', '{}', Date.now(), Date.now()).lastInsertRowid),
      Number(insert.run(WS, '/import/alive', '{}', Date.now(), Date.now()).lastInsertRowid),
    ];
    for (const id of ids) for (let index = 0; index < 600; index += 1) node.run(id, `n${index}`);
    db.close();

    const store = file.openStore();
    expect(countRows(file, 'graph_nodes')).toBe(600);
    expect(countRows(file, 'graphs')).toBe(1);
    return expect(store.listGraphs()).resolves.toEqual([]);
  });
});

import type { Database, Statement } from 'better-sqlite3';

/** The graph row a call works on, found by (workspace, graph key): the one cheap query per call. */
export interface GraphRef {
  id: number;
  revision: number;
  embeddingRevision: number;
}

export interface DocumentRow {
  document: string;
}

export interface KeyedDocumentRow {
  key: string;
  document: string;
}

export interface StepRow {
  source: string;
  target: string;
  /** Row id of the edge: insertion order, the tie-break between neighbours at one distance. */
  edgeId: number;
}

export interface StoredNodeRow {
  key: string;
  document: string;
  embedding: Buffer | null;
  model: string | null;
  hash: string | null;
}

/** A node row with its row id: the order nodes are listed (and searched, on equal scores) in. */
export interface NodeRow {
  id: number;
  key: string;
  document: string;
}

/** What one write recorded: the (graph or embedding) revision it produced and the node keys it touched. */
export interface NodeChangesRow {
  revision: number;
  /** JSON array of node keys. */
  nodeKeys: string;
}

/** A node's stored vector with its row id (the order among equal scores). */
export interface VectorRow {
  id: number;
  key: string;
  embedding: Buffer;
}

/** Joins that scope a node or edge query to one graph of one workspace (bound: workspace, graph key). */
const NODES_OF = 'graph_nodes n JOIN graphs g ON g.id = n.graph_id WHERE g.workspace = ? AND g.graph_key = ?';
const EDGES_OF = 'graph_edges e JOIN graphs g ON g.id = e.graph_id WHERE g.workspace = ? AND g.graph_key = ?';

/**
 * Every SQL statement of the embedded graph store, prepared once per connection and reused.
 * Reads by (workspace, graph key) join `graphs` on the workspace; statements that take a graph id
 * are only ever given an id that a workspace-filtered statement returned in the same call.
 */
export class SqliteGraphStatements {
  // Graphs
  readonly graphRef: Statement<[string, string], GraphRef>;
  readonly graphDocumentById: Statement<[number], DocumentRow>;
  readonly graphRevisionsById: Statement<[number], { revision: number; embeddingRevision: number }>;
  readonly insertGraph: Statement<[string, string, string, number, number]>;
  /** (graph key, document, revision, updated at, id): a staged import becomes the graph (sqlite-graph.importer.ts). */
  readonly promoteStagedGraph: Statement<[string, string, number, number, number]>;
  /** (graph key, updated at, id): renames a graph row, e.g. out of the way of its replacement. */
  readonly renameGraph: Statement<[string, number, number]>;
  readonly touchGraph: Statement<[number, number]>;
  readonly stagedGraphs: Statement<[], { id: number; graphKey: string; updatedAt: number }>;
  readonly deleteGraphRow: Statement<[number]>;
  readonly bumpRevision: Statement<[number, number]>;
  readonly bumpWorkspaceRevisions: Statement<[number, string]>;
  readonly bumpEmbeddingRevision: Statement<[number]>;
  readonly listGraphs: Statement<[], { workspace: string; graphKey: string }>;
  readonly anyGraph: Statement<[], { found: number }>;
  readonly listGraphsOf: Statement<[string], { workspace: string; graphKey: string }>;
  readonly graphWorkspaceById: Statement<[number], { workspace: string }>;
  readonly nodeCountById: Statement<[number], { count: number }>;
  /** Graphs of at least so many nodes, the most recently changed first. */
  readonly graphsOfAtLeast: Statement<[number], { workspace: string; graphKey: string; nodes: number }>;

  // Nodes, scoped by (workspace, graph key)
  /** Bound: workspace, graph key (sheet), limit (-1: all). */
  readonly nodes: Statement<[string, string, number], DocumentRow>;
  readonly nodesOfSheet: Statement<[string, string, string, number], DocumentRow>;
  readonly node: Statement<[string, string, string], DocumentRow>;
  readonly nodesByKeys: Statement<[string, string, string], KeyedDocumentRow>;
  /** (graph id, after row id, page size): the next nodes' embedding states in row order. */
  readonly embeddingStatesPage: Statement<
    [number, number, number],
    { id: number; nodeKey: string; model: string | null; hash: string | null }
  >;

  // Edges, scoped by (workspace, graph key)
  readonly edges: Statement<[string, string], DocumentRow>;
  readonly edgesOfSheet: Statement<[string, string, string], DocumentRow>;
  readonly edgesFrom: Statement<[string, string, string], DocumentRow>;
  readonly edgesTo: Statement<[string, string, string], DocumentRow>;
  readonly edgesTouching: Statement<[string, string, string, string, string, string], DocumentRow>;

  // By graph id (after a workspace-filtered graphRef)
  /** (graph id, after row id, page size): the next rows in row order, for index builds cut into pages. */
  readonly nodeRowsPage: Statement<[number, number, number], NodeRow>;
  readonly nodeRowsByKeys: Statement<[number, string], NodeRow>;
  readonly nodeChangesBetween: Statement<[number, number, number], NodeChangesRow>;
  readonly embeddingChangesBetween: Statement<[number, number, number], NodeChangesRow>;
  readonly nodeDocumentsByKeys: Statement<[number, string], KeyedDocumentRow>;
  readonly nodeKeysOfSheet: Statement<[number, string], { key: string }>;
  /** (graph id, model, after row id, page size). */
  readonly vectorsOfModelPage: Statement<[number, string, number, number], VectorRow>;
  readonly vectorsOfModelByKeys: Statement<[number, string, string], VectorRow>;
  readonly stepsOut: Statement<[number, string], StepRow>;
  readonly stepsIn: Statement<[number, string], StepRow>;
  readonly edgesBetween: Statement<[number, string, string], DocumentRow>;
  readonly nodeDocumentById: Statement<[number, string], DocumentRow>;
  readonly edgeDocumentById: Statement<[number, string], DocumentRow>;
  readonly storedNodesByKeys: Statement<[number, string], StoredNodeRow>;

  // Writes by graph id (inside a transaction)
  readonly insertNode: Statement<[number, string, string, string, string, Buffer | null, string | null, string | null]>;
  readonly updateNodeDocument: Statement<[string, string, string, number, string]>;
  readonly setNodeVector: Statement<[Buffer | null, string | null, string | null, number, string]>;
  readonly deleteNode: Statement<[number, string]>;
  readonly deleteEdgesFrom: Statement<[number, string]>;
  readonly deleteEdgesTo: Statement<[number, string]>;
  readonly insertEdge: Statement<[number, string, string, string, string, string]>;
  readonly updateEdge: Statement<[string, string, string, string, number, string]>;
  readonly deleteEdge: Statement<[number, string]>;
  /** (graph id, page size): deletes up to that many of the graph's rows. */
  readonly deleteEdgesPage: Statement<[number, number]>;
  readonly deleteNodesPage: Statement<[number, number]>;
  readonly recordNodeChanges: Statement<[number, number, string]>;
  readonly pruneNodeChanges: Statement<[number, number]>;
  readonly recordEmbeddingChanges: Statement<[number, number, string]>;
  readonly pruneEmbeddingChanges: Statement<[number, number]>;

  // Node configs, scoped by workspace
  readonly nodeConfigs: Statement<[string], DocumentRow>;
  readonly upsertNodeConfig: Statement<[string, string, string, number]>;
  readonly nodeConfigsRevision: Statement<[string], { revision: number }>;
  readonly bumpNodeConfigsRevision: Statement<[string]>;

  constructor(db: Database) {
    this.graphRef = db.prepare(
      'SELECT id, revision, embedding_revision AS embeddingRevision FROM graphs WHERE workspace = ? AND graph_key = ?',
    );
    this.graphDocumentById = db.prepare('SELECT document FROM graphs WHERE id = ?');
    this.graphRevisionsById = db.prepare(
      'SELECT revision, embedding_revision AS embeddingRevision FROM graphs WHERE id = ?',
    );
    this.insertGraph = db.prepare(
      'INSERT INTO graphs (workspace, graph_key, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.promoteStagedGraph = db.prepare(
      'UPDATE graphs SET graph_key = ?, document = ?, revision = ?, updated_at = ? WHERE id = ?',
    );
    this.renameGraph = db.prepare('UPDATE graphs SET graph_key = ?, updated_at = ? WHERE id = ?');
    this.touchGraph = db.prepare('UPDATE graphs SET updated_at = ? WHERE id = ?');
    // Staged and retired rows have keys starting with "/", which no graph key may hold (graph-key.rule.ts).
    this.stagedGraphs = db.prepare(
      "SELECT id, graph_key AS graphKey, updated_at AS updatedAt FROM graphs WHERE graph_key LIKE '/%'",
    );
    this.deleteGraphRow = db.prepare('DELETE FROM graphs WHERE id = ?');
    this.bumpRevision = db.prepare('UPDATE graphs SET revision = revision + 1, updated_at = ? WHERE id = ?');
    this.bumpWorkspaceRevisions = db.prepare(
      'UPDATE graphs SET revision = revision + 1, updated_at = ? WHERE workspace = ?',
    );
    this.bumpEmbeddingRevision = db.prepare(
      'UPDATE graphs SET embedding_revision = embedding_revision + 1 WHERE id = ?',
    );
    this.listGraphs = db.prepare(
      "SELECT workspace, graph_key AS graphKey FROM graphs WHERE graph_key NOT LIKE '/%' ORDER BY workspace, graph_key",
    );
    this.anyGraph = db.prepare("SELECT 1 AS found FROM graphs WHERE graph_key NOT LIKE '/%' LIMIT 1");
    this.listGraphsOf = db.prepare(
      "SELECT workspace, graph_key AS graphKey FROM graphs WHERE workspace = ? AND graph_key NOT LIKE '/%' ORDER BY graph_key",
    );
    this.graphWorkspaceById = db.prepare('SELECT workspace FROM graphs WHERE id = ?');
    this.nodeCountById = db.prepare('SELECT count(*) AS count FROM graph_nodes WHERE graph_id = ?');
    this.graphsOfAtLeast = db.prepare(
      'SELECT g.workspace, g.graph_key AS graphKey, count(n.id) AS nodes FROM graphs g JOIN graph_nodes n ON n.graph_id = g.id ' +
        "WHERE g.graph_key NOT LIKE '/%' GROUP BY g.id HAVING count(n.id) >= ? ORDER BY g.updated_at DESC, g.id DESC",
    );

    this.nodes = db.prepare(`SELECT n.document FROM ${NODES_OF} ORDER BY n.id LIMIT ?`);
    this.nodesOfSheet = db.prepare(`SELECT n.document FROM ${NODES_OF} AND n.sheet = ? ORDER BY n.id LIMIT ?`);
    this.node = db.prepare(`SELECT n.document FROM ${NODES_OF} AND n.node_key = ?`);
    this.nodesByKeys = db.prepare(
      `SELECT n.node_key AS key, n.document FROM ${NODES_OF} AND n.node_key IN (SELECT value FROM json_each(?))`,
    );
    this.embeddingStatesPage = db.prepare(
      'SELECT id, node_key AS nodeKey, embedding_model AS model, embedding_hash AS hash FROM graph_nodes ' +
        'WHERE graph_id = ? AND id > ? ORDER BY id LIMIT ?',
    );

    this.edges = db.prepare(`SELECT e.document FROM ${EDGES_OF} ORDER BY e.id`);
    this.edgesOfSheet = db.prepare(`SELECT e.document FROM ${EDGES_OF} AND e.sheet = ? ORDER BY e.id`);
    this.edgesFrom = db.prepare(`SELECT e.document FROM ${EDGES_OF} AND e.source = ? ORDER BY e.id`);
    this.edgesTo = db.prepare(`SELECT e.document FROM ${EDGES_OF} AND e.target = ? ORDER BY e.id`);
    // A UNION, not an OR: each half uses its index; the union also returns a self-loop once.
    this.edgesTouching = db.prepare(
      `SELECT e.id, e.document FROM ${EDGES_OF} AND e.source = ? UNION SELECT e.id, e.document FROM ${EDGES_OF} AND e.target = ? ORDER BY 1`,
    );

    this.nodeRowsPage = db.prepare(
      'SELECT id, node_key AS key, document FROM graph_nodes WHERE graph_id = ? AND id > ? ORDER BY id LIMIT ?',
    );
    this.nodeRowsByKeys = db.prepare(
      'SELECT id, node_key AS key, document FROM graph_nodes WHERE graph_id = ? AND node_key IN (SELECT value FROM json_each(?))',
    );
    this.nodeChangesBetween = db.prepare(
      'SELECT revision, node_keys AS nodeKeys FROM graph_node_changes WHERE graph_id = ? AND revision > ? AND revision <= ? ORDER BY revision',
    );
    this.embeddingChangesBetween = db.prepare(
      'SELECT embedding_revision AS revision, node_keys AS nodeKeys FROM graph_embedding_changes ' +
        'WHERE graph_id = ? AND embedding_revision > ? AND embedding_revision <= ? ORDER BY embedding_revision',
    );
    this.nodeKeysOfSheet = db.prepare('SELECT node_key AS key FROM graph_nodes WHERE graph_id = ? AND sheet = ?');
    this.nodeDocumentsByKeys = db.prepare(
      'SELECT node_key AS key, document FROM graph_nodes WHERE graph_id = ? AND node_key IN (SELECT value FROM json_each(?))',
    );
    this.vectorsOfModelPage = db.prepare(
      'SELECT id, node_key AS key, embedding FROM graph_nodes WHERE graph_id = ? AND embedding_model = ? AND embedding IS NOT NULL AND id > ? ' +
        'ORDER BY id LIMIT ?',
    );
    this.vectorsOfModelByKeys = db.prepare(
      'SELECT id, node_key AS key, embedding FROM graph_nodes WHERE graph_id = ? AND embedding_model = ? AND embedding IS NOT NULL ' +
        'AND node_key IN (SELECT value FROM json_each(?))',
    );
    // One BFS level; the frontier comes as a JSON array. `IN (SELECT value FROM json_each(?))` keeps the
    // (graph_id, source|target) index in use (a JOIN on json_each made the planner scan the graph's edges).
    this.stepsOut = db.prepare(
      'SELECT source, target, id AS edgeId FROM graph_edges WHERE graph_id = ? AND source IN (SELECT value FROM json_each(?))',
    );
    this.stepsIn = db.prepare(
      'SELECT source, target, id AS edgeId FROM graph_edges WHERE graph_id = ? AND target IN (SELECT value FROM json_each(?))',
    );
    this.edgesBetween = db.prepare(
      'SELECT document FROM graph_edges WHERE graph_id = ? AND source IN (SELECT value FROM json_each(?)) ' +
        'AND target IN (SELECT value FROM json_each(?)) ORDER BY id',
    );
    this.nodeDocumentById = db.prepare('SELECT document FROM graph_nodes WHERE graph_id = ? AND node_key = ?');
    this.edgeDocumentById = db.prepare('SELECT document FROM graph_edges WHERE graph_id = ? AND edge_key = ?');
    this.storedNodesByKeys = db.prepare(
      'SELECT node_key AS key, document, embedding, embedding_model AS model, embedding_hash AS hash FROM graph_nodes ' +
        'WHERE graph_id = ? AND node_key IN (SELECT value FROM json_each(?))',
    );

    this.insertNode = db.prepare(
      'INSERT INTO graph_nodes (graph_id, node_key, type, sheet, document, embedding, embedding_model, embedding_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.updateNodeDocument = db.prepare(
      'UPDATE graph_nodes SET type = ?, sheet = ?, document = ? WHERE graph_id = ? AND node_key = ?',
    );
    this.setNodeVector = db.prepare(
      'UPDATE graph_nodes SET embedding = ?, embedding_model = ?, embedding_hash = ? WHERE graph_id = ? AND node_key = ?',
    );
    this.deleteNode = db.prepare('DELETE FROM graph_nodes WHERE graph_id = ? AND node_key = ?');
    this.deleteEdgesFrom = db.prepare('DELETE FROM graph_edges WHERE graph_id = ? AND source = ?');
    this.deleteEdgesTo = db.prepare('DELETE FROM graph_edges WHERE graph_id = ? AND target = ?');
    this.insertEdge = db.prepare(
      'INSERT INTO graph_edges (graph_id, edge_key, sheet, source, target, document) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.updateEdge = db.prepare(
      'UPDATE graph_edges SET sheet = ?, source = ?, target = ?, document = ? WHERE graph_id = ? AND edge_key = ?',
    );
    this.deleteEdge = db.prepare('DELETE FROM graph_edges WHERE graph_id = ? AND edge_key = ?');
    this.deleteEdgesPage = db.prepare(
      'DELETE FROM graph_edges WHERE id IN (SELECT id FROM graph_edges WHERE graph_id = ? LIMIT ?)',
    );
    this.deleteNodesPage = db.prepare(
      'DELETE FROM graph_nodes WHERE id IN (SELECT id FROM graph_nodes WHERE graph_id = ? LIMIT ?)',
    );
    this.recordNodeChanges = db.prepare(
      'INSERT INTO graph_node_changes (graph_id, revision, node_keys) VALUES (?, ?, ?)',
    );
    this.pruneNodeChanges = db.prepare('DELETE FROM graph_node_changes WHERE graph_id = ? AND revision <= ?');
    this.recordEmbeddingChanges = db.prepare(
      'INSERT INTO graph_embedding_changes (graph_id, embedding_revision, node_keys) VALUES (?, ?, ?)',
    );
    this.pruneEmbeddingChanges = db.prepare(
      'DELETE FROM graph_embedding_changes WHERE graph_id = ? AND embedding_revision <= ?',
    );

    this.nodeConfigs = db.prepare('SELECT document FROM node_configs WHERE workspace = ? ORDER BY config_key');
    this.upsertNodeConfig = db.prepare(
      'INSERT INTO node_configs (workspace, config_key, document, updated_at) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (workspace, config_key) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at',
    );
    this.nodeConfigsRevision = db.prepare('SELECT revision FROM node_config_revisions WHERE workspace = ?');
    this.bumpNodeConfigsRevision = db.prepare(
      'INSERT INTO node_config_revisions (workspace, revision) VALUES (?, 1) ON CONFLICT (workspace) DO UPDATE SET revision = revision + 1',
    );
  }
}

import { Database } from 'arangojs';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { exportGraphDocument } from '../graph-document.exporter';
import { validateGraphImport } from '../graph-import.validator';
import { GraphDocument, GraphNode } from '../graph.types';
import { hasNodeContentChanged } from '../node-content';
import { GraphStore, NodeEmbeddingWrite, StoredEmbeddingState, StoreHealth } from '../graph-store';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { ArangoCapabilities } from './arango-capabilities';
import { documentKeyProblems } from './arango-document-key';
import { ArangoDocumentMapper } from './arango-document.mapper';
import { ArangoGraphDataSource, ArangoGraphTransaction } from './arango-graph.data-source';
import { ArangoGraphCollections, ArangoGraphQueries } from './arango-graph.queries';
import { ARANGO_GRAPH_NAMES, EMBEDDING_FIELDS } from './arango-graph.names';
import { ArangoQueryExecutor } from '../../database/arango/arango-query.executor';
import { ArangoGraphSchema } from './arango-graph.schema';
import { DEFAULT_VECTOR_EXACT_SCAN_BELOW } from './arango-vector-search.plan';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';

const logger = new Logger('arango-store');

/** A health probe that hangs is a failed probe. */
const HEALTH_TIMEOUT_MS = 3000;

export interface ArangoGraphStoreOptions {
  /** Wait for the search view to index recent writes before each BM25 query (contract tests). */
  searchWaitForSync?: boolean;
  /** Graphs with fewer nodes are searched by the exact vector scan even with a vector index (default 5,000). */
  vectorExactScanBelow?: number;
}

type StoredDocument = Record<string, unknown>;

/**
 * The production GraphStore: the graphs Nodius keeps in ArangoDB. Opened once at
 * start by `ArangoGraphStore.open()` on the instance's connection (ArangoPersistenceModule, which
 * connects with retries and closes the connection last): schema ensured, capabilities detected.
 * After that a lost server never crashes the process: each call fails with `store_unavailable` (503,
 * retryable) until it comes back, and `health()` reports it down.
 *
 * `supportsImport` is false: the graphs belong to Nodius, so PUT /graphs answers 409 read_only_store.
 * `importGraph` still works for the demo seed job and tests, atomically.
 */
export class ArangoGraphStore implements GraphStore {
  readonly kind = 'arango' as const;
  readonly supportsImport = false;

  private readonly collections: ArangoGraphCollections;
  private readonly queries: ArangoGraphQueries;
  private readonly executor: ArangoQueryExecutor;

  constructor(
    private readonly db: Database,
    private readonly capabilities: ArangoCapabilities,
    private readonly options: ArangoGraphStoreOptions = {},
  ) {
    this.collections = {
      graphs: db.collection(ARANGO_GRAPH_NAMES.graphs),
      nodes: db.collection(ARANGO_GRAPH_NAMES.nodes),
      edges: db.collection(ARANGO_GRAPH_NAMES.edges),
      nodeConfigs: db.collection(ARANGO_GRAPH_NAMES.nodeConfigs),
      searchView: db.view(ARANGO_GRAPH_NAMES.searchView),
    };
    this.queries = new ArangoGraphQueries(this.collections);
    this.executor = new ArangoQueryExecutor(db);
  }

  /** On a connected database (ArangoConnector): ensures the schema, detects capabilities. The caller keeps the connection. */
  static async open(db: Database, options: ArangoGraphStoreOptions = {}): Promise<ArangoGraphStore> {
    return new ArangoGraphStore(db, await ensureSchema(db), options);
  }

  forWorkspace(workspace: string): MutableGraphDataSource {
    return this.dataSource(workspace);
  }

  /**
   * `work` in one stream transaction on one graph of the workspace (ArangoGraphDataSource.transaction), for the change
   * log (src/changes), which writes its own documents in `collections` in the same transaction.
   */
  transaction<T>(
    workspace: string,
    graphKey: string,
    collections: string[],
    work: (graph: ArangoGraphTransaction) => Promise<T>,
  ): Promise<T> {
    return this.dataSource(workspace).transaction(graphKey, collections, work);
  }

  private dataSource(workspace: string): ArangoGraphDataSource {
    return new ArangoGraphDataSource(workspace, this.collections, this.queries, this.executor, this.capabilities, {
      searchWaitForSync: this.options.searchWaitForSync ?? false,
      vectorExactScanBelow: this.options.vectorExactScanBelow ?? DEFAULT_VECTOR_EXACT_SCAN_BELOW,
    });
  }

  listGraphs(workspace?: string): Promise<Array<{ workspace: string; graphKey: string }>> {
    return this.executor.all(this.queries.listGraphs(workspace), 'listGraphs');
  }

  async hasGraphs(): Promise<boolean> {
    return (await this.executor.all(this.queries.anyGraph(), 'hasGraphs')).length > 0;
  }

  /**
   * Replaces the graph in one stream transaction, after the shared import validation: its nodes and
   * edges are removed and the given ones written, the graph document replaced, the node configs
   * upserted into the workspace. A re-imported node whose content did not change keeps its stored
   * vector; a node carrying its own vector (a Nodius export) is stored with it. A graph key or config
   * key owned by another workspace is a conflict: ArangoDB keys are unique per collection, so unlike
   * the embedded store two workspaces cannot hold the same key (Nodius keys are unique tokens anyway).
   * Keys ArangoDB cannot store are listed with the other problems (400), and a graph key that another
   * graph's key extends with "-" (or that extends one) is a conflict: `a` and `a-b` would share node
   * document keys (`a-b` + `c` and `a` + `b-c` are both `a-b-c`).
   */
  async importGraph(workspace: string, input: GraphDocument): Promise<{ nodes: number; edges: number }> {
    const graphKey = input.graph?._key;
    const { document, problems } = validateGraphImport(typeof graphKey === 'string' ? graphKey : '', input);
    if (typeof graphKey === 'string') problems.push(...documentKeyProblems(graphKey, document));
    if (problems.length > 0) {
      throw AppError.badRequest(
        `The graph "${String(graphKey)}" cannot be imported: ${problems.length} integrity problem(s)`,
        problems,
      );
    }
    const configKeys = document.nodeConfigs.map((config) => config._key);
    const { graphs, nodes, edges, nodeConfigs } = this.collections;
    await this.executor.transaction({ write: [graphs, nodes, edges, nodeConfigs] }, 'importGraph', async (step) => {
      const [state] = await step<{
        graphWorkspace: string | null;
        clashingGraph: boolean;
        foreignConfigs: string[];
        vectors: StoredDocument[];
      }>(this.queries.importState(workspace, graphKey, configKeys));
      if (state.graphWorkspace !== null && state.graphWorkspace !== workspace) {
        throw AppError.conflict(`Graph key "${graphKey}" is already used in the graph store`, { graphKey });
      }
      if (state.clashingGraph) {
        throw AppError.conflict(
          `Graph key "${graphKey}" cannot be used: another graph's key extends it, or is extended by it, with "-", and node ` +
            'documents are keyed {graphKey}-{nodeKey}, so their node keys could collide (docs/graph-store.md)',
          { graphKey },
        );
      }
      if (state.foreignConfigs.length > 0) {
        throw AppError.conflict(
          `Node config keys already used by another workspace: ${state.foreignConfigs.join(', ')}`,
          {
            configKeys: state.foreignConfigs,
          },
        );
      }
      const previous = new Map(
        state.vectors.map((doc) => [ArangoDocumentMapper.localKey(graphKey, String(doc._key)), doc]),
      );
      const nodeDocs = document.nodes.map((node) => {
        const doc = ArangoDocumentMapper.toNodeDocument(graphKey, node);
        const before = previous.get(node._key);
        const keep =
          doc.embedding === undefined && before !== undefined && !hasNodeContentChanged(before as GraphNode, node);
        return keep ? { ...doc, ...pick(before, EMBEDDING_FIELDS) } : doc;
      });
      await step(this.queries.removeGraphEdges(graphKey));
      await step(this.queries.removeGraphNodes(graphKey));
      await step(
        this.queries.upsertGraph(
          ArangoDocumentMapper.toGraphDocument(workspace, { ...document.graph, _key: graphKey }),
        ),
      );
      if (nodeDocs.length > 0) await step(this.queries.insertNodes(nodeDocs));
      if (document.edges.length > 0) {
        await step(
          this.queries.insertEdges(document.edges.map((edge) => ArangoDocumentMapper.toEdgeDocument(graphKey, edge))),
        );
      }
      if (document.nodeConfigs.length > 0) {
        await step(
          this.queries.upsertNodeConfigs(
            document.nodeConfigs.map((config) => ArangoDocumentMapper.toNodeConfigDocument(workspace, config)),
          ),
        );
      }
    });
    logger.info('arango_graph_imported', {
      workspace,
      graphKey,
      nodes: document.nodes.length,
      edges: document.edges.length,
    });
    return { nodes: document.nodes.length, edges: document.edges.length };
  }

  /** The graph as its data source reads it (shared export rules: no vectors, configs of the types used). */
  exportGraph(workspace: string, graphKey: string): Promise<GraphDocument | null> {
    return exportGraphDocument(this.forWorkspace(workspace), graphKey);
  }

  async getEmbeddingStates(workspace: string, graphKey: string): Promise<StoredEmbeddingState[]> {
    const rows = await this.executor.all<{ key: string; model: string | null; hash: string | null }>(
      this.queries.embeddingStates(workspace, graphKey),
      'getEmbeddingStates',
    );
    return rows.map((row) => ({
      nodeKey: ArangoDocumentMapper.localKey(graphKey, row.key),
      model: row.model ?? null,
      hash: row.hash ?? null,
    }));
  }

  /** Writes vectors onto the node documents (`embedding`, `embeddingModel`, `embeddingHash`); deleted nodes are skipped. */
  async saveEmbeddings(workspace: string, graphKey: string, entries: NodeEmbeddingWrite[]): Promise<void> {
    const graph = await this.executor.first(this.queries.graph(workspace, graphKey), 'saveEmbeddings');
    if (!graph) throw AppError.notFound(`Graph "${graphKey}" not found`);
    if (entries.length === 0) return;
    const rows = entries.map((entry) => ({
      key: ArangoDocumentMapper.compositeKey(graphKey, entry.nodeKey),
      embedding: Array.from(entry.vector),
      model: entry.model,
      hash: entry.hash,
    }));
    await this.executor.all(this.queries.saveEmbeddings(workspace, graphKey, rows), 'saveEmbeddings');
  }

  async health(): Promise<StoreHealth> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
      });
      const { version } = await Promise.race([this.db.version(), timeout]);
      return { status: 'up', kind: 'arango', detail: `ArangoDB ${version}` };
    } catch (error) {
      return {
        status: 'down',
        kind: 'arango',
        detail: `ArangoDB unreachable: ${error instanceof Error ? error.message : String(error)}`,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Nothing of its own to release: the connection belongs to whoever opened it, and is closed after the store. */
  async close(): Promise<void> {
    return undefined;
  }
}

function ensureSchema(db: Database): Promise<ArangoCapabilities> {
  return runArangoSchemaSetup(db, 'schema', () => new ArangoGraphSchema(db).ensure());
}

function pick(source: StoredDocument, fields: readonly string[]): StoredDocument {
  return Object.fromEntries(
    fields.filter((field) => source[field] !== undefined).map((field) => [field, source[field]]),
  );
}

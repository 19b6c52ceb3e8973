import { isArangoError } from 'arangojs/errors';
import { ArangoQueryExecutor, TransactionStep } from '../../database/arango/arango-query.executor';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { GraphChangeSet, graphChangeSet } from '../graph-change-set';
import { GraphChangeLookup, GraphChangePlan, GraphChangePlanner } from '../graph-change.planner';
import { EdgeDirection, NodeNeighborhood, ScoredNode, SearchScope, VectorQuery } from '../graph-data-source';
import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { DomainLexicon } from '../search/domain-lexicon';
import { hasNodeContentChanged } from '../node-content';
import { ArangoCapabilities } from './arango-capabilities';
import { DOCUMENT_KEY_RULE, localKeyProblem } from './arango-document-key';
import { ArangoDocumentMapper } from './arango-document.mapper';
import { ArangoGraphCollections, ArangoGraphQueries, NodeReplacement } from './arango-graph.queries';
import { planVectorSearch } from './arango-vector-search.plan';

const logger = new Logger('arango-store');

type StoredDocument = Record<string, unknown>;

export interface ArangoDataSourceOptions {
  /** Wait for the search view to index recent writes before a BM25 query (tests; costly in production). */
  searchWaitForSync: boolean;
  /** Graphs with fewer nodes are searched by the exact vector scan, even with a vector index. */
  vectorExactScanBelow: number;
}

/**
 * One graph inside ArangoGraphDataSource.transaction: its stored nodes and edges as the stream transaction sees them
 * (its own writes included), change sets applied in order, and `step` for the caller's own queries in the same
 * transaction (on the collections it named).
 */
export interface ArangoGraphTransaction {
  /** The named nodes that exist (local keys). */
  nodes(nodeKeys: string[]): Promise<GraphNode[]>;
  /** The named edges that exist. */
  edges(edgeKeys: string[]): Promise<GraphEdge[]>;
  /** Every edge whose source or target is one of the nodes. */
  edgesOfNodes(nodeKeys: string[]): Promise<GraphEdge[]>;
  /** Plans (GraphChangePlanner) and writes a change set, as applyChanges does. */
  apply(changes: GraphChangeSet): Promise<GraphChangePlan>;
  step: TransactionStep;
}

/** Hits re-ranked by exact-match tier: enough that the node a query names is among them. */
const MIN_SEARCH_CANDIDATES = 50;
const MAX_SEARCH_CANDIDATES = 500;
const MAX_DEPTH = 3;
/** Compiled once: the French words of the domain lexicon and their English words. */
const ARANGO_LEXICON = new DomainLexicon();

/**
 * The graphs of one workspace in ArangoDB (Nodius's layout). Reads are single AQL queries that
 * begin with the workspace guard; every mutation runs in a stream transaction (all or nothing);
 * callers see local keys only (arango-document.mapper.ts).
 */
export class ArangoGraphDataSource implements MutableGraphDataSource {
  constructor(
    readonly workspace: string,
    private readonly collections: ArangoGraphCollections,
    private readonly queries: ArangoGraphQueries,
    private readonly executor: ArangoQueryExecutor,
    private readonly capabilities: ArangoCapabilities,
    private readonly options: ArangoDataSourceOptions,
    private readonly planner: GraphChangePlanner = new GraphChangePlanner(),
  ) {}

  async getGraph(graphKey: string): Promise<Graph | null> {
    const doc = await this.executor.first<StoredDocument>(this.queries.graph(this.workspace, graphKey), 'getGraph');
    return doc ? ArangoDocumentMapper.toGraph(doc) : null;
  }

  async getNodes(graphKey: string, sheetId?: string, limit?: number): Promise<GraphNode[]> {
    const docs = await this.executor.all<StoredDocument>(
      this.queries.nodes(this.workspace, graphKey, sheetId, limit),
      'getNodes',
    );
    return docs.map((doc) => ArangoDocumentMapper.toNode(doc, graphKey));
  }

  async getEdges(graphKey: string, sheetId?: string): Promise<GraphEdge[]> {
    const docs = await this.executor.all<StoredDocument>(
      this.queries.edges(this.workspace, graphKey, sheetId),
      'getEdges',
    );
    return docs.map((doc) => ArangoDocumentMapper.toEdge(doc, graphKey));
  }

  async getNodeByKey(graphKey: string, nodeKey: string): Promise<GraphNode | null> {
    const [node] = await this.getNodesByKeys(graphKey, [nodeKey]);
    return node ?? null;
  }

  async getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]> {
    const keys = [...new Set(nodeKeys)];
    if (keys.length === 0) return [];
    const composite = keys.map((key) => ArangoDocumentMapper.compositeKey(graphKey, key));
    const docs = await this.executor.all<StoredDocument>(
      this.queries.nodesByKeys(this.workspace, graphKey, composite),
      'getNodesByKeys',
    );
    const byKey = new Map(docs.map((doc) => [ArangoDocumentMapper.localKey(graphKey, String(doc._key)), doc]));
    return keys.flatMap((key) => {
      const doc = byKey.get(key);
      return doc ? [ArangoDocumentMapper.toNode(doc, graphKey)] : [];
    });
  }

  async getEdgesOfNode(graphKey: string, nodeKey: string, direction: EdgeDirection): Promise<GraphEdge[]> {
    const nodeId = ArangoDocumentMapper.nodeId(graphKey, nodeKey);
    const docs = await this.executor.all<StoredDocument>(
      this.queries.edgesOfNode(this.workspace, graphKey, nodeId, direction),
      'getEdgesOfNode',
    );
    return docs.map((doc) => ArangoDocumentMapper.toEdge(doc, graphKey));
  }

  async getNodeConfigs(): Promise<NodeTypeConfig[]> {
    const docs = await this.executor.all<StoredDocument>(this.queries.nodeConfigs(this.workspace), 'getNodeConfigs');
    return docs.map((doc) => ArangoDocumentMapper.toNodeConfig(doc));
  }

  /**
   * BM25 through the ArangoSearch view, then the embedded store's exact-match tiers: a node whose
   * local key the query names (tier 2), or whose type / type display name it names (tier 1), ranks
   * first; its score becomes `bm25 + tier × (best bm25 + 1)` so scores stay > 0 and best first.
   */
  async searchNodes(
    graphKey: string,
    query: string,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    if (maxResults <= 0 || query.trim() === '') return [];
    const candidates = Math.min(MAX_SEARCH_CANDIDATES, Math.max(MIN_SEARCH_CANDIDATES, maxResults * 3));
    // The domain lexicon's English words for a French question; the view's analyzers do the rest.
    const translated = ARANGO_LEXICON.translationText(query);
    const hits = await this.executor.all<{ node: StoredDocument; score: number; tier: number }>(
      this.queries.lexicalSearch({
        workspace: this.workspace,
        graphKey,
        query: translated ? `${query} ${translated}` : query,
        candidates,
        waitForSync: this.options.searchWaitForSync,
        ...(scope.sheet === undefined ? {} : { sheet: scope.sheet }),
      }),
      'searchNodes',
    );
    const best = hits.reduce((max, hit) => Math.max(max, hit.score), 0);
    return hits
      .map((hit) => ({
        node: ArangoDocumentMapper.toNode(hit.node, graphKey),
        score: hit.score + hit.tier * (best + 1),
      }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.node._key.localeCompare(b.node._key))
      .slice(0, maxResults);
  }

  /**
   * Cosine similarity over the graph's vectors of `query.model`: through the vector index when the
   * server has a usable one of the query's dimension and the graph is large enough to need it
   * (planVectorSearch: nProbe chosen for the graph's size), by an exact COSINE_SIMILARITY scan
   * otherwise. A failing indexed search (index dropped or untrained, a server error) falls back to the
   * exact scan; only a store that cannot be reached at all fails the call.
   */
  async searchNodesByVector(
    graphKey: string,
    query: VectorQuery,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    if (maxResults <= 0 || query.vector.length === 0) return [];
    const params = {
      workspace: this.workspace,
      graphKey,
      vector: Array.from(query.vector),
      model: query.model,
      minScore: query.minScore,
      limit: maxResults,
      sheet: scope.sheet,
    };
    const index = this.capabilities.vectorIndex;
    let hits: Array<{ node: StoredDocument; score: number }> | undefined;
    // One sheet (a workflow of a many-sheet graph) is small: scanned exactly, never through the index.
    if (index && index.dimension === query.vector.length && scope.sheet === undefined) {
      const graphNodes = await this.executor.first<number>(
        this.queries.graphNodeCount(this.workspace, graphKey),
        'searchNodesByVector',
      );
      if (graphNodes === undefined) return []; // not a graph of this workspace
      const plan = planVectorSearch(index, graphNodes, maxResults, this.options.vectorExactScanBelow);
      if (plan.mode === 'indexed') {
        try {
          hits = await this.executor.all(
            this.queries.vectorSearchIndexed({ ...params, nProbe: plan.nProbe }),
            'searchNodesByVector',
          );
        } catch (error) {
          if (error instanceof AppError && error.code === 'store_unavailable') throw error;
          logger.warn('arango_vector_index_failed', {
            index: index.name,
            errorName: error instanceof Error ? error.name : typeof error,
            errorNum: isArangoError(error) ? error.errorNum : undefined,
          });
        }
      }
    }
    hits ??= await this.executor.all(this.queries.vectorSearchExact(params), 'searchNodesByVector');
    return hits.map((hit) => ({ node: ArangoDocumentMapper.toNode(hit.node, graphKey), score: hit.score }));
  }

  async getNeighborhood(
    graphKey: string,
    nodeKey: string,
    depth: number,
    direction: EdgeDirection,
  ): Promise<NodeNeighborhood> {
    const maxDepth = Math.min(MAX_DEPTH, Math.max(1, Math.floor(depth) || 1));
    const startKey = ArangoDocumentMapper.compositeKey(graphKey, nodeKey);
    const result = await this.executor.first<{
      start: StoredDocument;
      reached: Array<{ node: StoredDocument; depth: number }>;
      edges: StoredDocument[];
    }>(this.queries.neighborhood(this.workspace, graphKey, startKey, maxDepth, direction), 'getNeighborhood');
    if (!result) return { nodes: [], edges: [] };
    // BFS already emits by depth; the stable sort only guards that order.
    const reached = [...result.reached].sort((a, b) => a.depth - b.depth);
    return {
      nodes: [result.start, ...reached.map((entry) => entry.node)].map((doc) =>
        ArangoDocumentMapper.toNode(doc, graphKey),
      ),
      edges: result.edges.map((doc) => ArangoDocumentMapper.toEdge(doc, graphKey)),
    };
  }

  createNode(graphKey: string, node: GraphNode): Promise<void> {
    return this.applyChanges(graphKey, graphChangeSet({ nodesToCreate: [node] }));
  }

  deleteNode(graphKey: string, nodeKey: string): Promise<void> {
    return this.applyChanges(graphKey, graphChangeSet({ nodeKeysToDelete: [nodeKey] }));
  }

  createEdge(graphKey: string, edge: GraphEdge): Promise<void> {
    return this.applyChanges(graphKey, graphChangeSet({ edgesToCreate: [edge] }));
  }

  deleteEdge(graphKey: string, edgeKey: string): Promise<void> {
    return this.applyChanges(graphKey, graphChangeSet({ edgeKeysToDelete: [edgeKey] }));
  }

  /** Replaces the node's document (key and graphKey kept); a content change drops its stale vector. */
  async updateNode(graphKey: string, node: GraphNode): Promise<void> {
    await this.inTransaction('updateNode', async (step) => {
      const state = await this.readState(step, graphKey, [node._key], []);
      const before = state.getNode(node._key);
      if (!before)
        throw new AppError('not_found', `Node "${node._key}" does not exist in graph "${graphKey}"`, {
          nodeKey: node._key,
        });
      const after: GraphNode = { ...node, _key: before._key, graphKey };
      for (const field of ['type', 'sheet'] as const) {
        if (typeof after[field] !== 'string' || after[field].length === 0) {
          throw AppError.badRequest(`Node "${after._key}" needs a non-empty string ${field}`, {
            nodeKey: after._key,
            field,
          });
        }
      }
      await step(this.queries.replaceNodes(graphKey, [this.replacement(graphKey, before, after)]));
    });
  }

  /** Replaces the edge's document (key and graphKey kept); both ends must exist. */
  async updateEdge(graphKey: string, edge: GraphEdge): Promise<void> {
    await this.inTransaction('updateEdge', async (step) => {
      const state = await this.readState(
        step,
        graphKey,
        [edge.source, edge.target].filter((end) => typeof end === 'string'),
        [edge._key],
      );
      if (!state.getEdge(edge._key))
        throw new AppError('not_found', `Edge "${edge._key}" does not exist in graph "${graphKey}"`, {
          edgeKey: edge._key,
        });
      for (const end of ['source', 'target'] as const) {
        if (typeof edge[end] !== 'string' || !state.getNode(edge[end])) {
          throw AppError.badRequest(`Edge "${edge._key}" would dangle: its ${end} node "${edge[end]}" does not exist`, {
            edgeKey: edge._key,
          });
        }
      }
      if (typeof edge.sheet !== 'string' || edge.sheet.length === 0)
        throw AppError.badRequest(`Edge "${edge._key}" needs a non-empty string sheet`);
      await this.touchEndpoints(step, graphKey, [edge.source, edge.target]);
      await step(
        this.queries.replaceEdge(
          ArangoDocumentMapper.toEdgeDocument(graphKey, { ...edge, graphKey }) as { _key: string },
        ),
      );
    });
  }

  /**
   * Created keys ArangoDB could not store are refused first (bad_request naming the key). Then one
   * stream transaction applies them (applyInTransaction).
   */
  async applyChanges(graphKey: string, changes: GraphChangeSet): Promise<void> {
    assertStorableKeys(graphKey, changes);
    await this.inTransaction('applyChanges', async (step) => {
      await this.applyInTransaction(step, graphKey, changes);
    });
  }

  /**
   * `work` in ONE stream transaction on one graph of the workspace, for the change log (src/changes), which writes its
   * own documents in the same transaction (`collections`: the ones it writes, besides nodes and edges). not_found when
   * the graph is not the workspace's; a throw aborts everything.
   */
  async transaction<T>(
    graphKey: string,
    collections: string[],
    work: (graph: ArangoGraphTransaction) => Promise<T>,
  ): Promise<T> {
    const { graphs, nodes, edges } = this.collections;
    return this.executor.transaction(
      { read: [graphs], write: [nodes, edges, ...collections] },
      'graphTransaction',
      async (step) => {
        const state = async (nodeKeys: string[], edgeKeys: string[], touching: string[]) =>
          this.readStateDocuments(step, graphKey, nodeKeys, edgeKeys, touching);
        await state([], [], []);
        return work({
          nodes: async (keys) => [...(await state(keys, [], [])).nodes.values()],
          edges: async (keys) => [...(await state([], keys, [])).edges.values()],
          edgesOfNodes: async (keys) => (await state([], [], keys)).touching,
          apply: async (changes) => {
            assertStorableKeys(graphKey, changes);
            return this.applyInTransaction(step, graphKey, changes);
          },
          step,
        });
      },
    );
  }

  /**
   * Read the named nodes and edges, plan with the shared GraphChangePlanner (which throws not_found / conflict /
   * bad_request before anything is written), then write in the plan's order: delete edges (with those of deleted
   * nodes), delete nodes, create nodes, update nodes, touch the existing nodes the new edges connect (touchNodes: a
   * concurrent deletion of one of them then conflicts with this transaction instead of leaving a dangling edge),
   * create edges.
   */
  private async applyInTransaction(
    step: TransactionStep,
    graphKey: string,
    changes: GraphChangeSet,
  ): Promise<GraphChangePlan> {
    const nodeKeys = [
      ...(changes.nodesToCreate ?? []).map((node) => node._key),
      ...(changes.nodeKeysToDelete ?? []),
      ...(changes.instructions ?? []).map((instruction) => instruction.nodeKey),
      ...(changes.edgesToCreate ?? []).flatMap((edge) => [edge.source, edge.target]),
    ];
    const edgeKeys = [...(changes.edgesToCreate ?? []).map((edge) => edge._key), ...(changes.edgeKeysToDelete ?? [])];
    const state = await this.readState(step, graphKey, nodeKeys, edgeKeys);
    const plan = this.planner.plan(graphKey, changes, state);
    const composite = (key: string): string => ArangoDocumentMapper.compositeKey(graphKey, key);
    if (plan.edgeKeysToDelete.length > 0 || plan.nodeKeysToDelete.length > 0) {
      const touching = plan.nodeKeysToDelete.map((key) => ArangoDocumentMapper.nodeId(graphKey, key));
      await step(this.queries.removeEdges(graphKey, plan.edgeKeysToDelete.map(composite), touching));
    }
    if (plan.nodeKeysToDelete.length > 0) await step(this.queries.removeNodes(plan.nodeKeysToDelete.map(composite)));
    if (plan.nodesToCreate.length > 0) {
      await step(
        this.queries.insertNodes(plan.nodesToCreate.map((node) => ArangoDocumentMapper.toNodeDocument(graphKey, node))),
      );
    }
    if (plan.nodesToUpdate.length > 0) {
      await step(
        this.queries.replaceNodes(
          graphKey,
          plan.nodesToUpdate.map(({ before, after }) => this.replacement(graphKey, before, after)),
        ),
      );
    }
    if (plan.edgesToCreate.length > 0) {
      const created = new Set(plan.nodesToCreate.map((node) => node._key));
      await this.touchEndpoints(
        step,
        graphKey,
        plan.edgesToCreate.flatMap((edge) => [edge.source, edge.target]).filter((key) => !created.has(key)),
      );
      await step(
        this.queries.insertEdges(plan.edgesToCreate.map((edge) => ArangoDocumentMapper.toEdgeDocument(graphKey, edge))),
      );
    }
    return plan;
  }

  /**
   * Writes the existing nodes new or moved edges connect, in their transaction (touchNodes), so that a
   * concurrent deletion of one of them conflicts with it; one gone already is a retryable conflict.
   */
  private async touchEndpoints(step: TransactionStep, graphKey: string, nodeKeys: string[]): Promise<void> {
    const endpoints = [...new Set(nodeKeys)];
    if (endpoints.length === 0) return;
    const touched = await step<string>(
      this.queries.touchNodes(
        graphKey,
        endpoints.map((key) => ArangoDocumentMapper.compositeKey(graphKey, key)),
      ),
    );
    if (touched.length < endpoints.length)
      throw new AppError(
        'conflict',
        'A node an edge connects was deleted meanwhile; retry',
        { graphKey },
        {
          retryable: true,
        },
      );
  }

  private replacement(graphKey: string, before: GraphNode, after: GraphNode): NodeReplacement {
    const { embedding: _vector, embeddingModel: _model, embeddingHash: _hash, ...content } = after;
    return {
      document: ArangoDocumentMapper.toNodeDocument(graphKey, content as GraphNode) as NodeReplacement['document'],
      keepVector: !hasNodeContentChanged(before, after),
    };
  }

  /** The graph's ownership (not_found otherwise) and the named nodes/edges that exist, as a planner lookup. */
  private async readState(
    step: TransactionStep,
    graphKey: string,
    nodeKeys: string[],
    edgeKeys: string[],
  ): Promise<GraphChangeLookup> {
    const { nodes, edges } = await this.readStateDocuments(step, graphKey, nodeKeys, edgeKeys, []);
    return { getNode: (key) => nodes.get(key) ?? null, getEdge: (key) => edges.get(key) ?? null };
  }

  /** The named nodes and edges that exist, and the edges touching `touching` nodes; not_found when the graph is not owned. */
  private async readStateDocuments(
    step: TransactionStep,
    graphKey: string,
    nodeKeys: string[],
    edgeKeys: string[],
    touching: string[],
  ): Promise<{ nodes: Map<string, GraphNode>; edges: Map<string, GraphEdge>; touching: GraphEdge[] }> {
    const composite = (keys: string[]): string[] =>
      [...new Set(keys)].map((key) => ArangoDocumentMapper.compositeKey(graphKey, key));
    const [state] = await step<{
      owned: boolean;
      nodes: StoredDocument[];
      edges: StoredDocument[];
      touching: StoredDocument[];
    }>(
      this.queries.changeSetState({
        workspace: this.workspace,
        graphKey,
        nodeKeys: composite(nodeKeys),
        edgeKeys: composite(edgeKeys),
        touchingNodeIds: [...new Set(touching)].map((key) => ArangoDocumentMapper.nodeId(graphKey, key)),
      }),
    );
    if (!state.owned) throw new AppError('not_found', `Graph "${graphKey}" does not exist`, { graphKey });
    return {
      nodes: new Map(
        state.nodes.map((doc) => ArangoDocumentMapper.toNode(doc, graphKey)).map((node) => [node._key, node]),
      ),
      edges: new Map(
        state.edges.map((doc) => ArangoDocumentMapper.toEdge(doc, graphKey)).map((edge) => [edge._key, edge]),
      ),
      touching: (state.touching ?? []).map((doc) => ArangoDocumentMapper.toEdge(doc, graphKey)),
    };
  }

  private inTransaction(operation: string, work: (step: TransactionStep) => Promise<void>): Promise<void> {
    const { graphs, nodes, edges } = this.collections;
    return this.executor.transaction({ read: [graphs], write: [nodes, edges] }, operation, work);
  }
}

/** A created node or edge whose document key `{graphKey}-{key}` ArangoDB would refuse (error 1221): 400 naming it. */
function assertStorableKeys(graphKey: string, changes: GraphChangeSet): void {
  const created = [
    ...(changes.nodesToCreate ?? []).map((node) => ({ kind: 'Node', field: 'nodeKey', key: node._key })),
    ...(changes.edgesToCreate ?? []).map((edge) => ({ kind: 'Edge', field: 'edgeKey', key: edge._key })),
  ];
  for (const { kind, field, key } of created) {
    if (typeof key !== 'string') continue; // the planner refuses it
    const problem = localKeyProblem(graphKey, key);
    if (problem)
      throw AppError.badRequest(`${kind} key "${key}" cannot be stored: it ${problem}`, {
        [field]: key,
        rule: DOCUMENT_KEY_RULE,
      });
  }
}

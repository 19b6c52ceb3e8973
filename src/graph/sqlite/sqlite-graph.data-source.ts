import { EventLoopSlicer } from '../event-loop.slicer';
import { GraphChangeSet, graphChangeSet } from '../graph-change-set';
import { EdgeDirection, NodeNeighborhood, ScoredNode, SearchScope, VectorQuery } from '../graph-data-source';
import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { SearchIndexNotReadyError } from '../search-index-not-ready.error';
import { SqliteDecodedDocumentCache } from './sqlite-decoded-document.cache';
import { IndexWait, SqliteGraphIndexCache } from './sqlite-graph-index.cache';
import { decodeDocument } from './sqlite-graph.codec';
import { DocumentRow, GraphRef, SqliteGraphStatements } from './sqlite-graph.statements';
import { SqliteGraphWriter } from './sqlite-graph.writer';
import { SqliteSearchIndexUpdater } from './sqlite-search-index.updater';
import { SqliteVectorIndexUpdater } from './sqlite-vector-index.updater';

/**
 * The graphs of ONE workspace in the embedded store. Every read is filtered by the workspace, so
 * another workspace's graph answers null / []; writes go through SqliteGraphWriter (one IMMEDIATE
 * transaction each). Nodes come back without their vector. Search indexes live in the store-wide
 * SqliteGraphIndexCache and are checked against the graph's revisions on every search, then brought
 * up to date node by node (SqliteSearchIndexUpdater, SqliteVectorIndexUpdater); the decoded Graph
 * document and node configs in SqliteDecodedDocumentCache, checked against their revisions on every
 * read (they come back frozen: shared by every reader).
 */
export class SqliteGraphDataSource implements MutableGraphDataSource {
  constructor(
    readonly workspace: string,
    private readonly statements: SqliteGraphStatements,
    private readonly writer: SqliteGraphWriter,
    private readonly indexes: SqliteGraphIndexCache,
    private readonly documents: SqliteDecodedDocumentCache,
    private readonly searchIndexes: SqliteSearchIndexUpdater,
    private readonly vectorIndexes: SqliteVectorIndexUpdater,
  ) {}

  /** Decoded once per graph revision and shared (frozen). */
  async getGraph(graphKey: string): Promise<Graph | null> {
    const ref = this.statements.graphRef.get(this.workspace, graphKey);
    if (!ref) return null;
    return this.documents.graph(this.workspace, graphKey, ref, () => {
      const row = this.statements.graphDocumentById.get(ref.id);
      return row ? decodeDocument<Graph>(row.document) : null;
    });
  }

  async getNodes(graphKey: string, sheetId?: string, limit = -1): Promise<GraphNode[]> {
    const rows =
      sheetId === undefined
        ? this.statements.nodes.all(this.workspace, graphKey, limit)
        : this.statements.nodesOfSheet.all(this.workspace, graphKey, sheetId, limit);
    return decodeAllInSlices<GraphNode>(rows);
  }

  async getEdges(graphKey: string, sheetId?: string): Promise<GraphEdge[]> {
    const rows =
      sheetId === undefined
        ? this.statements.edges.all(this.workspace, graphKey)
        : this.statements.edgesOfSheet.all(this.workspace, graphKey, sheetId);
    return decodeAllInSlices<GraphEdge>(rows);
  }

  async getNodeByKey(graphKey: string, nodeKey: string): Promise<GraphNode | null> {
    const row = this.statements.node.get(this.workspace, graphKey, nodeKey);
    return row ? decodeDocument<GraphNode>(row.document) : null;
  }

  async getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]> {
    const keys = [...new Set(nodeKeys)];
    if (keys.length === 0) return [];
    const rows = this.statements.nodesByKeys.all(this.workspace, graphKey, JSON.stringify(keys));
    return inKeyOrder(keys, rows);
  }

  async getEdgesOfNode(graphKey: string, nodeKey: string, direction: EdgeDirection): Promise<GraphEdge[]> {
    const { workspace, statements } = this;
    const rows =
      direction === 'out'
        ? statements.edgesFrom.all(workspace, graphKey, nodeKey)
        : direction === 'in'
          ? statements.edgesTo.all(workspace, graphKey, nodeKey)
          : statements.edgesTouching.all(workspace, graphKey, nodeKey, workspace, graphKey, nodeKey);
    return decodeAll<GraphEdge>(rows);
  }

  /** Decoded once per configs revision of the workspace and shared (frozen). */
  async getNodeConfigs(): Promise<NodeTypeConfig[]> {
    return this.nodeConfigs();
  }

  async searchNodes(
    graphKey: string,
    query: string,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    const ref = this.statements.graphRef.get(this.workspace, graphKey);
    if (!ref || maxResults <= 0) return [];
    const index = await this.indexes.searchIndex(
      this.workspace,
      graphKey,
      ref,
      (current) => this.searchIndexes.update(ref.id, graphKey, current, () => this.nodeConfigs()),
      this.waitFor(ref.id, false),
    );
    if (!index) throw new SearchIndexNotReadyError(graphKey, 'bm25');
    return this.withDocuments(
      ref,
      index.search(query, maxResults, scope.sheet).map((hit) => ({ key: hit.nodeKey, score: hit.score })),
    );
  }

  async searchNodesByVector(
    graphKey: string,
    query: VectorQuery,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    const ref = this.statements.graphRef.get(this.workspace, graphKey);
    if (!ref || maxResults <= 0) return [];
    const index = await this.vectorIndexOf(ref, graphKey, query.model, false);
    if (!index) throw new SearchIndexNotReadyError(graphKey, 'vectors');
    const among =
      scope.sheet === undefined
        ? undefined
        : new Set(this.statements.nodeKeysOfSheet.all(ref.id, scope.sheet).map((row) => row.key));
    return this.withDocuments(ref, index.search(query.vector, query.minScore, maxResults, among));
  }

  /**
   * Builds (or loads) the graph's BM25 index, and its vector index of `vectorModel`, waiting for them
   * however long it takes: what the first question would otherwise wait for. False when the graph
   * does not exist.
   */
  async prepareSearch(graphKey: string, vectorModel: string | null): Promise<boolean> {
    const ref = this.statements.graphRef.get(this.workspace, graphKey);
    if (!ref) return false;
    await this.indexes.searchIndex(
      this.workspace,
      graphKey,
      ref,
      (current) => this.searchIndexes.update(ref.id, graphKey, current, () => this.nodeConfigs()),
      this.waitFor(ref.id, true),
    );
    if (vectorModel) await this.vectorIndexOf(ref, graphKey, vectorModel, true);
    return true;
  }

  /**
   * Brings the graph's vector index of `model` up to date, waiting for a rebuild if one is needed,
   * when this process keeps that index; false (and nothing built) otherwise.
   */
  async refreshVectorIndex(graphKey: string, model: string): Promise<boolean> {
    const ref = this.statements.graphRef.get(this.workspace, graphKey);
    if (!ref || !this.indexes.holdsVectors(this.workspace, graphKey, model)) return false;
    await this.vectorIndexOf(ref, graphKey, model, true);
    return true;
  }

  async getNeighborhood(
    graphKey: string,
    nodeKey: string,
    depth: number,
    direction: EdgeDirection,
  ): Promise<NodeNeighborhood> {
    const ref = this.statements.graphRef.get(this.workspace, graphKey);
    if (!ref || !this.nodesOf(ref, [nodeKey]).has(nodeKey)) return { nodes: [], edges: [] };
    const maxDepth = Math.min(3, Math.max(1, Math.floor(depth) || 1));
    const reached = [nodeKey];
    const seen = new Set(reached);
    let frontier = reached.slice();
    for (let level = 0; level < maxDepth && frontier.length > 0; level += 1) {
      const next: string[] = [];
      for (const neighbour of this.neighboursOf(ref.id, frontier, direction)) {
        if (seen.has(neighbour)) continue;
        seen.add(neighbour);
        reached.push(neighbour);
        next.push(neighbour);
      }
      frontier = next;
    }
    const keysJson = JSON.stringify(reached);
    const nodes = this.nodesOf(ref, reached);
    return {
      nodes: reached.flatMap((key) => nodes.get(key) ?? []),
      edges: decodeAll<GraphEdge>(this.statements.edgesBetween.all(ref.id, keysJson, keysJson)),
    };
  }

  async createNode(graphKey: string, node: GraphNode): Promise<void> {
    this.writer.applyChanges(this.workspace, graphKey, graphChangeSet({ nodesToCreate: [node] }));
  }

  async updateNode(graphKey: string, node: GraphNode): Promise<void> {
    this.writer.updateNode(this.workspace, graphKey, node);
  }

  async deleteNode(graphKey: string, nodeKey: string): Promise<void> {
    this.writer.applyChanges(this.workspace, graphKey, graphChangeSet({ nodeKeysToDelete: [nodeKey] }));
  }

  async createEdge(graphKey: string, edge: GraphEdge): Promise<void> {
    this.writer.applyChanges(this.workspace, graphKey, graphChangeSet({ edgesToCreate: [edge] }));
  }

  async updateEdge(graphKey: string, edge: GraphEdge): Promise<void> {
    this.writer.updateEdge(this.workspace, graphKey, edge);
  }

  async deleteEdge(graphKey: string, edgeKey: string): Promise<void> {
    this.writer.applyChanges(this.workspace, graphKey, graphChangeSet({ edgeKeysToDelete: [edgeKey] }));
  }

  async applyChanges(graphKey: string, changes: GraphChangeSet): Promise<void> {
    this.writer.applyChanges(this.workspace, graphKey, changes);
  }

  /** The graph's vector index of `model` from the index cache, brought up to date (see SqliteGraphIndexCache.vectorIndex). */
  private vectorIndexOf(ref: GraphRef, graphKey: string, model: string, untilBuilt: boolean) {
    return this.indexes.vectorIndex(
      this.workspace,
      graphKey,
      ref,
      model,
      (current) => this.vectorIndexes.update(ref.id, graphKey, model, current),
      this.waitFor(ref.id, untilBuilt),
    );
  }

  private waitFor(graphId: number, untilBuilt: boolean): IndexWait {
    return { untilBuilt, offThread: () => this.searchIndexes.buildsOffThread(graphId) };
  }

  /** The workspace's node configs, decoded once per configs revision (synchronous, for index builds). */
  getNodeConfigsNow(): NodeTypeConfig[] {
    return this.nodeConfigs();
  }

  private nodeConfigs(): NodeTypeConfig[] {
    const revision = this.statements.nodeConfigsRevision.get(this.workspace)?.revision ?? 0;
    return this.documents.nodeConfigs(this.workspace, revision, () =>
      decodeAll<NodeTypeConfig>(this.statements.nodeConfigs.all(this.workspace)),
    );
  }

  /** Neighbours one hop from the frontier, in frontier order, then in edge (insertion) order whatever their direction. */
  private neighboursOf(graphId: number, frontier: string[], direction: EdgeDirection): string[] {
    const frontierJson = JSON.stringify(frontier);
    const rank = new Map(frontier.map((key, index) => [key, index]));
    const steps: Array<{ rank: number; edgeId: number; neighbour: string }> = [];
    if (direction !== 'in') {
      for (const step of this.statements.stepsOut.all(graphId, frontierJson)) {
        steps.push({ rank: rank.get(step.source) ?? 0, edgeId: step.edgeId, neighbour: step.target });
      }
    }
    if (direction !== 'out') {
      for (const step of this.statements.stepsIn.all(graphId, frontierJson)) {
        steps.push({ rank: rank.get(step.target) ?? 0, edgeId: step.edgeId, neighbour: step.source });
      }
    }
    steps.sort((left, right) => left.rank - right.rank || left.edgeId - right.edgeId);
    return steps.map((step) => step.neighbour);
  }

  /** Hits with their current documents; a node deleted since the index was built is dropped. */
  private withDocuments(ref: GraphRef, hits: Array<{ key: string; score: number }>): ScoredNode[] {
    if (hits.length === 0) return [];
    const nodes = this.nodesOf(
      ref,
      hits.map((hit) => hit.key),
    );
    return hits.flatMap((hit) => {
      const node = nodes.get(hit.key);
      return node ? [{ node, score: hit.score }] : [];
    });
  }

  /** The nodes of `keys` as of `ref` that exist, by key: decoded once per graph revision and shared (frozen). */
  private nodesOf(ref: GraphRef, keys: readonly string[]): Map<string, GraphNode> {
    return this.documents.nodes.byKeys(ref, keys, (missing) =>
      this.statements.nodeDocumentsByKeys.all(ref.id, JSON.stringify(missing)),
    );
  }
}

function decodeAll<T>(rows: DocumentRow[]): T[] {
  return rows.map((row) => decodeDocument<T>(row.document));
}

/**
 * The rows of one read (one statement: one state of the file), decoded in slices of the event loop:
 * a whole graph of 50,000 nodes is over 100 ms of JSON.parse (the embedding of an import reads it).
 */
async function decodeAllInSlices<T>(rows: DocumentRow[]): Promise<T[]> {
  const slicer = new EventLoopSlicer();
  const decoded: T[] = [];
  for (const row of rows) {
    decoded.push(decodeDocument<T>(row.document));
    await slicer.maybeYield();
  }
  return decoded;
}

function inKeyOrder(keys: string[], rows: Array<{ key: string; document: string }>): GraphNode[] {
  const documents = new Map(rows.map((row) => [row.key, row.document]));
  const nodes: GraphNode[] = [];
  for (const key of keys) {
    const document = documents.get(key);
    if (document !== undefined) nodes.push(decodeDocument<GraphNode>(document));
  }
  return nodes;
}

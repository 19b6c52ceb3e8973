import { GraphChangeSet } from '../graph-change-set';
import { GraphChangeNotifier } from '../graph-change.notifier';
import { EdgeDirection, NodeNeighborhood, ScoredNode, SearchScope, VectorQuery } from '../graph-data-source';
import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { hasNodeContentChanged } from '../node-content';
import { GraphOverlay } from './graph-overlay';
import { LiveOverlayRegistry } from './live-overlay.registry';
import { changedNodesOf, searchPastHidden } from './overlay-changed-nodes';
import { searchNodesWithOverlay } from './overlay-lexical.search';
import { neighborhoodWithOverlay } from './overlay-neighborhood.walker';

/**
 * The data source every consumer gets (GraphDataSourceFactory): the store's, seen through the live
 * overlay of each graph. Upserted nodes and edges win over the store's; deleted keys are hidden
 * everywhere, edges of a deleted node included; edges are de-duplicated by key; the graph document
 * and node configs are the store's. Lexical search and neighbourhoods follow the overlay; vector
 * search drops hits whose content changed (their vector is stale until the node is saved and
 * embedded again).
 *
 * A graph without unsaved changes costs one registry lookup per call, then the store answers.
 * Writes go to the store, then tell the GraphChangeNotifier (retrieval cache, embedding write path).
 */
export class OverlayGraphDataSource implements MutableGraphDataSource {
  constructor(
    private readonly store: MutableGraphDataSource,
    private readonly overlays: LiveOverlayRegistry,
    private readonly notifier: GraphChangeNotifier,
  ) {}

  get workspace(): string {
    return this.store.workspace;
  }

  getGraph(graphKey: string): Promise<Graph | null> {
    return this.store.getGraph(graphKey);
  }

  getNodeConfigs(): Promise<NodeTypeConfig[]> {
    return this.store.getNodeConfigs();
  }

  async getNodes(graphKey: string, sheetId?: string, limit?: number): Promise<GraphNode[]> {
    const overlay = this.overlayOf(graphKey);
    // Unsaved deletions may hide stored nodes: the first `limit` visible ones need the whole list then.
    if (!overlay?.changesNodes) return this.store.getNodes(graphKey, sheetId, limit);
    const stored = await this.store.getNodes(graphKey, sheetId);
    return mergeDocuments(
      stored,
      overlay.nodes,
      overlay.deletedNodes,
      (node) => sheetId === undefined || node.sheet === sheetId,
    ).slice(0, limit);
  }

  async getEdges(graphKey: string, sheetId?: string): Promise<GraphEdge[]> {
    const overlay = this.overlayOf(graphKey);
    const stored = await this.store.getEdges(graphKey, sheetId);
    if (!overlay?.changesStructure) return stored;
    const visible = stored.filter((edge) => overlay.isEdgeVisible(edge));
    return mergeDocuments(
      visible,
      overlay.edges,
      overlay.deletedEdges,
      (edge) => (sheetId === undefined || edge.sheet === sheetId) && overlay.isEdgeVisible(edge),
    );
  }

  async getNodeByKey(graphKey: string, nodeKey: string): Promise<GraphNode | null> {
    const overlay = this.overlayOf(graphKey);
    if (overlay?.deletedNodes.has(nodeKey)) return null;
    return overlay?.nodes.get(nodeKey) ?? this.store.getNodeByKey(graphKey, nodeKey);
  }

  async getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]> {
    const overlay = this.overlayOf(graphKey);
    if (!overlay?.changesNodes) return this.store.getNodesByKeys(graphKey, nodeKeys);
    const keys = [...new Set(nodeKeys)].filter((key) => !overlay.deletedNodes.has(key));
    const fromStore = keys.filter((key) => !overlay.nodes.has(key));
    const stored = new Map(
      (fromStore.length > 0 ? await this.store.getNodesByKeys(graphKey, fromStore) : []).map((node) => [
        node._key,
        node,
      ]),
    );
    return keys.flatMap((key) => {
      const node = overlay.nodes.get(key) ?? stored.get(key);
      return node ? [node] : [];
    });
  }

  async getEdgesOfNode(graphKey: string, nodeKey: string, direction: EdgeDirection): Promise<GraphEdge[]> {
    const overlay = this.overlayOf(graphKey);
    if (!overlay?.changesStructure) return this.store.getEdgesOfNode(graphKey, nodeKey, direction);
    if (overlay.deletedNodes.has(nodeKey)) return [];
    const touches = (edge: GraphEdge) =>
      ((direction !== 'in' && edge.source === nodeKey) || (direction !== 'out' && edge.target === nodeKey)) &&
      overlay.isEdgeVisible(edge);
    const stored = (await this.store.getEdgesOfNode(graphKey, nodeKey, direction)).filter(
      (edge) => !overlay.edges.has(edge._key) && overlay.isEdgeVisible(edge),
    );
    for (const edge of overlay.edges.values()) if (touches(edge)) stored.push(edge);
    return stored;
  }

  async searchNodes(
    graphKey: string,
    query: string,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    const overlay = this.overlayOf(graphKey);
    if (!overlay?.changesNodes) return this.store.searchNodes(graphKey, query, maxResults, scope);
    return searchNodesWithOverlay(this.store, overlay, graphKey, query, maxResults, scope);
  }

  async searchNodesByVector(
    graphKey: string,
    query: VectorQuery,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    const overlay = this.overlayOf(graphKey);
    if (!overlay?.changesNodes) return this.store.searchNodesByVector(graphKey, query, maxResults, scope);
    const changes = await changedNodesOf(this.store, overlay, graphKey);
    // A node moved to another sheet by an unsaved change is where the overlay puts it.
    const visible = (hits: ScoredNode[]) =>
      visibleVectorHits(hits, overlay).filter((hit) => scope.sheet === undefined || hit.node.sheet === scope.sheet);
    const hits = await searchPastHidden(
      changes.hiddenInStore,
      maxResults,
      (limit) => this.store.searchNodesByVector(graphKey, query, limit, scope),
      (found) => visible(found).length,
    );
    return visible(hits).slice(0, maxResults);
  }

  async getNeighborhood(
    graphKey: string,
    nodeKey: string,
    depth: number,
    direction: EdgeDirection,
  ): Promise<NodeNeighborhood> {
    const overlay = this.overlayOf(graphKey);
    if (!overlay) return this.store.getNeighborhood(graphKey, nodeKey, depth, direction);
    return neighborhoodWithOverlay(this.store, overlay, graphKey, nodeKey, depth, direction);
  }

  async createNode(graphKey: string, node: GraphNode): Promise<void> {
    await this.store.createNode(graphKey, node);
    this.stored(graphKey, [node._key]);
  }

  async updateNode(graphKey: string, node: GraphNode): Promise<void> {
    await this.store.updateNode(graphKey, node);
    this.stored(graphKey, [node._key]);
  }

  async deleteNode(graphKey: string, nodeKey: string): Promise<void> {
    await this.store.deleteNode(graphKey, nodeKey);
    this.stored(graphKey, [], [nodeKey]);
  }

  async createEdge(graphKey: string, edge: GraphEdge): Promise<void> {
    await this.store.createEdge(graphKey, edge);
    this.stored(graphKey, []);
  }

  async updateEdge(graphKey: string, edge: GraphEdge): Promise<void> {
    await this.store.updateEdge(graphKey, edge);
    this.stored(graphKey, []);
  }

  async deleteEdge(graphKey: string, edgeKey: string): Promise<void> {
    await this.store.deleteEdge(graphKey, edgeKey);
    this.stored(graphKey, []);
  }

  async applyChanges(graphKey: string, changes: GraphChangeSet): Promise<void> {
    await this.store.applyChanges(graphKey, changes);
    const touched = [
      ...(changes.nodesToCreate ?? []).map((node) => node._key),
      ...(changes.instructions ?? []).map((instruction) => instruction.nodeKey),
    ];
    this.stored(graphKey, [...new Set(touched)], changes.nodeKeysToDelete ?? []);
  }

  private overlayOf(graphKey: string): GraphOverlay | undefined {
    return this.overlays.get(this.store.workspace, graphKey);
  }

  private stored(graphKey: string, nodeKeys: string[], deletedNodeKeys: string[] = []): void {
    this.notifier.notify({
      kind: 'stored',
      workspace: this.store.workspace,
      graphKey,
      nodeKeys,
      ...(deletedNodeKeys.length > 0 ? { deletedNodeKeys } : {}),
    });
  }
}

/** Vector hits of nodes the overlay neither deleted nor changed (a stored vector says nothing about new content). */
function visibleVectorHits(hits: ScoredNode[], overlay: GraphOverlay): ScoredNode[] {
  const result: ScoredNode[] = [];
  for (const hit of hits) {
    if (overlay.deletedNodes.has(hit.node._key)) continue;
    const live = overlay.nodes.get(hit.node._key);
    if (live && hasNodeContentChanged(hit.node, live)) continue;
    result.push(live ? { node: live, score: hit.score } : hit);
  }
  return result;
}

/**
 * The store's documents with the overlay applied: deleted ones left out, upserted ones replaced in
 * place (or left out when they no longer match `keep`), then the overlay's other upserts that match.
 */
function mergeDocuments<T extends { _key: string }>(
  stored: T[],
  upserted: ReadonlyMap<string, T>,
  deleted: ReadonlySet<string>,
  keep: (document: T) => boolean,
): T[] {
  const result: T[] = [];
  const emitted = new Set<string>();
  for (const document of stored) {
    if (deleted.has(document._key) || emitted.has(document._key)) continue;
    const live = upserted.get(document._key);
    emitted.add(document._key);
    if (!live) result.push(document);
    else if (keep(live)) result.push(live);
  }
  for (const [key, live] of upserted) if (!emitted.has(key) && keep(live)) result.push(live);
  return result;
}

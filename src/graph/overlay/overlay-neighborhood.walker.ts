import { EdgeDirection, NodeNeighborhood } from '../graph-data-source';
import { GraphEdge, GraphNode } from '../graph.types';
import { GraphOverlay } from './graph-overlay';

/** What the walk needs from the store. */
export interface NeighborhoodBase {
  getNeighborhood(
    graphKey: string,
    nodeKey: string,
    depth: number,
    direction: EdgeDirection,
  ): Promise<NodeNeighborhood>;
  getEdgesOfNode(graphKey: string, nodeKey: string, direction: EdgeDirection): Promise<GraphEdge[]>;
  getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]>;
}

/**
 * BFS from `nodeKey` over the graph as the live overlay shows it: deleted nodes and edges are not
 * walked, upserted edges are (with their overlay ends), upserted nodes come with their overlay
 * document. Same contract as GraphDataSource.getNeighborhood: start node first, then by distance
 * (frontier order, then edge order: the store's edges before the overlay's), and every visible edge
 * joining two reached nodes.
 *
 * Cost: one store BFS. When the overlay only changed node documents (the common case: edits and
 * moves), that is all. Otherwise the store's neighbourhood is corrected in memory; only nodes the
 * store's walk did not fully explore (reached through an overlay edge, or at the store walk's last
 * level) have their edges fetched, one query each.
 */
export async function neighborhoodWithOverlay(
  base: NeighborhoodBase,
  overlay: GraphOverlay,
  graphKey: string,
  nodeKey: string,
  depth: number,
  direction: EdgeDirection,
): Promise<NodeNeighborhood> {
  if (overlay.deletedNodes.has(nodeKey)) return { nodes: [], edges: [] };
  const maxDepth = Math.min(3, Math.max(1, Math.floor(depth) || 1));
  const start = overlay.nodes.get(nodeKey);
  const stored = await base.getNeighborhood(graphKey, nodeKey, maxDepth, direction);
  if (!overlay.changesStructure) {
    if (stored.nodes.length === 0) return start ? { nodes: [start], edges: [] } : { nodes: [], edges: [] };
    return { nodes: stored.nodes.map((node) => overlay.nodes.get(node._key) ?? node), edges: stored.edges };
  }
  if (!start && stored.nodes.length === 0) return { nodes: [], edges: [] };
  return new OverlayWalk(base, overlay, graphKey, direction, stored).run(nodeKey, maxDepth);
}

class OverlayWalk {
  private readonly storedNodes: Map<string, GraphNode>;
  private readonly storedEdgesOf: Map<string, GraphEdge[]>;
  private readonly liveEdgesOf: Map<string, GraphEdge[]>;
  private readonly storeDistance: Map<string, number>;
  /** Store edges (any direction) of nodes the store's walk did not fully explore. */
  private readonly fetchedEdges = new Map<string, GraphEdge[]>();
  private readonly fetchedNodes = new Map<string, GraphNode>();

  constructor(
    private readonly base: NeighborhoodBase,
    private readonly overlay: GraphOverlay,
    private readonly graphKey: string,
    private readonly direction: EdgeDirection,
    private readonly stored: NodeNeighborhood,
  ) {
    this.storedNodes = new Map(stored.nodes.map((node) => [node._key, node]));
    this.storedEdgesOf = indexByEnds(stored.edges);
    this.liveEdgesOf = indexByEnds([...overlay.edges.values()].filter((edge) => overlay.isEdgeVisible(edge)));
    this.storeDistance = stored.nodes.length > 0 ? this.distancesInStore(stored.nodes[0]._key) : new Map();
  }

  async run(startKey: string, maxDepth: number): Promise<NodeNeighborhood> {
    const reached = [startKey];
    const seen = new Set(reached);
    let frontier = reached.slice();
    for (let level = 0; level < maxDepth && frontier.length > 0; level += 1) {
      await this.fetchEdges(frontier.filter((key) => !this.isExplored(key, maxDepth)));
      const candidates: string[] = [];
      for (const key of frontier) {
        for (const edge of this.edgesOf(key, maxDepth)) {
          const neighbour = this.neighbourVia(key, edge);
          if (neighbour === null || seen.has(neighbour)) continue;
          seen.add(neighbour);
          candidates.push(neighbour);
        }
      }
      await this.fetchNodes(candidates.filter((key) => !this.documentOf(key)));
      // An overlay edge may point at a node that exists nowhere: it is not reached.
      frontier = candidates.filter((key) => this.documentOf(key) !== undefined);
      reached.push(...frontier);
    }

    const inside = new Set(reached);
    await this.fetchEdges(reached.filter((key) => !this.storedNodes.has(key)));
    const edges = new Map<string, GraphEdge>();
    const offer = (edge: GraphEdge) => {
      if (inside.has(edge.source) && inside.has(edge.target) && !edges.has(edge._key)) edges.set(edge._key, edge);
    };
    for (const edge of this.stored.edges) if (this.isStoreEdgeVisible(edge)) offer(edge);
    for (const list of this.fetchedEdges.values())
      for (const edge of list) if (this.isStoreEdgeVisible(edge)) offer(edge);
    for (const list of this.liveEdgesOf.values()) for (const edge of list) offer(edge);
    return { nodes: reached.map((key) => this.documentOf(key) as GraphNode), edges: [...edges.values()] };
  }

  /** The store's walk saw every edge of this node in the walk's direction (it was not on its last level). */
  private isExplored(key: string, maxDepth: number): boolean {
    return (this.storeDistance.get(key) ?? Number.POSITIVE_INFINITY) < maxDepth || this.fetchedEdges.has(key);
  }

  /** Visible edges touching `key`: the store's first (as the store ordered them), then the overlay's. */
  private edgesOf(key: string, maxDepth: number): GraphEdge[] {
    const storeEdges =
      this.fetchedEdges.get(key) ?? (this.isExplored(key, maxDepth) ? (this.storedEdgesOf.get(key) ?? []) : []);
    return [...storeEdges.filter((edge) => this.isStoreEdgeVisible(edge)), ...(this.liveEdgesOf.get(key) ?? [])];
  }

  /** A store edge the overlay neither deleted (itself or an end) nor replaced. */
  private isStoreEdgeVisible(edge: GraphEdge): boolean {
    return !this.overlay.edges.has(edge._key) && this.overlay.isEdgeVisible(edge);
  }

  private neighbourVia(key: string, edge: GraphEdge): string | null {
    if (this.direction !== 'in' && edge.source === key) return edge.target;
    if (this.direction !== 'out' && edge.target === key) return edge.source;
    return null;
  }

  private documentOf(key: string): GraphNode | undefined {
    return this.overlay.nodes.get(key) ?? this.storedNodes.get(key) ?? this.fetchedNodes.get(key);
  }

  private async fetchEdges(keys: string[]): Promise<void> {
    const missing = keys.filter((key) => !this.fetchedEdges.has(key));
    const lists = await Promise.all(missing.map((key) => this.base.getEdgesOfNode(this.graphKey, key, 'any')));
    missing.forEach((key, index) => this.fetchedEdges.set(key, lists[index]));
  }

  private async fetchNodes(keys: string[]): Promise<void> {
    const wanted = keys.filter((key) => !this.overlay.deletedNodes.has(key));
    if (wanted.length === 0) return;
    for (const node of await this.base.getNodesByKeys(this.graphKey, wanted)) this.fetchedNodes.set(node._key, node);
  }

  /** Distances in the store's own neighbourhood, along the walk's direction. */
  private distancesInStore(startKey: string): Map<string, number> {
    const distance = new Map([[startKey, 0]]);
    let frontier = [startKey];
    for (let level = 1; frontier.length > 0; level += 1) {
      const next: string[] = [];
      for (const key of frontier) {
        for (const edge of this.storedEdgesOf.get(key) ?? []) {
          const neighbour = this.neighbourVia(key, edge);
          if (neighbour === null || distance.has(neighbour)) continue;
          distance.set(neighbour, level);
          next.push(neighbour);
        }
      }
      frontier = next;
    }
    return distance;
  }
}

/** Edges listed under each of their ends (once for a self-loop), in input order. */
function indexByEnds(edges: GraphEdge[]): Map<string, GraphEdge[]> {
  const byEnd = new Map<string, GraphEdge[]>();
  const add = (key: string, edge: GraphEdge) => {
    const list = byEnd.get(key);
    if (list) list.push(edge);
    else byEnd.set(key, [edge]);
  };
  for (const edge of edges) {
    add(edge.source, edge);
    if (edge.target !== edge.source) add(edge.target, edge);
  }
  return byEnd;
}

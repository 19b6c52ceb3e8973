import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from './graph.types';

export type EdgeDirection = 'in' | 'out' | 'any';

export interface ScoredNode {
  node: GraphNode;
  score: number;
}

/** Nodes reached by a BFS (start node first, then by distance) and the edges walked or joining them. */
export interface NodeNeighborhood {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** Narrows a lexical search. */
export interface SearchScope {
  /** Only nodes of this sheet (an id of the graph's sheetsList). */
  sheet?: string;
}

export interface VectorQuery {
  vector: Float32Array;
  /** Only vectors produced by this model are compared (different models live in different spaces). */
  model: string;
  /** Cosine similarity threshold; hits at or below it are dropped (default 0.3). */
  minScore: number;
}

/**
 * Read access to the graphs of ONE workspace. Every method is scoped to that
 * workspace by construction: a graph of another workspace does not exist here (null / empty).
 * Nodes are returned without their `embedding` vector.
 */
export interface GraphDataSource {
  readonly workspace: string;
  getGraph(graphKey: string): Promise<Graph | null>;
  /** The graph's nodes (of one sheet), in the graph's order; with `limit`, only the first ones. */
  getNodes(graphKey: string, sheetId?: string, limit?: number): Promise<GraphNode[]>;
  getEdges(graphKey: string, sheetId?: string): Promise<GraphEdge[]>;
  getNodeByKey(graphKey: string, nodeKey: string): Promise<GraphNode | null>;
  /** Batch fetch; unknown keys are skipped; order follows `nodeKeys`. */
  getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]>;
  /** Edges touching a node: `out` where it is the source, `in` where it is the target. */
  getEdgesOfNode(graphKey: string, nodeKey: string, direction: EdgeDirection): Promise<GraphEdge[]>;
  /** The workspace's custom node-type configs. */
  getNodeConfigs(): Promise<NodeTypeConfig[]>;
  /**
   * Lexical (BM25) search, best first, scores > 0; empty when nothing matches. With `scope.sheet`,
   * only that sheet's nodes are ranked (corpus statistics stay the whole graph's).
   */
  searchNodes(graphKey: string, query: string, maxResults: number, scope?: SearchScope): Promise<ScoredNode[]>;
  /**
   * Cosine similarity over stored vectors of `query.model`, best first, above `query.minScore`. With
   * `scope.sheet`, only that sheet's nodes.
   */
  searchNodesByVector(
    graphKey: string,
    query: VectorQuery,
    maxResults: number,
    scope?: SearchScope,
  ): Promise<ScoredNode[]>;
  /** BFS from `nodeKey` up to `depth` (1-3) hops following `direction`; empty when the node is unknown. */
  getNeighborhood(
    graphKey: string,
    nodeKey: string,
    depth: number,
    direction: EdgeDirection,
  ): Promise<NodeNeighborhood>;
}

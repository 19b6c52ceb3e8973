/**
 * The canonical graph shapes of docs/protocol.md §2, identical across stores. Keys are local keys
 * (unique within a graph). Documents keep unknown extra fields: Nodius stores more than we read.
 */

export interface Graph {
  _key: string;
  workspace: string;
  name: string;
  description?: string;
  category?: string;
  version?: number | string;
  /** sheetId → readable sheet name, e.g. { "0": "main" }. */
  sheetsList: Record<string, string>;
  metadata?: Record<string, unknown>;
  createdTime?: number;
  lastUpdatedTime?: number;
  [extra: string]: unknown;
}

export type HandleSide = 'T' | 'D' | 'R' | 'L' | '0';

export interface HandlePoint {
  id: string;
  type: 'in' | 'out';
  accept: string;
  offset?: number;
  display?: string;
  linkedHtmlId?: string;
  [extra: string]: unknown;
}

export interface HandleGroup {
  position: 'separate' | 'fix';
  point: HandlePoint[];
  [extra: string]: unknown;
}

export type NodeHandles = Partial<Record<HandleSide, HandleGroup>>;

export interface NodeSize {
  width: number;
  height: number;
  dynamic?: boolean;
}

export interface GraphNode {
  _key: string;
  graphKey: string;
  type: string;
  typeVersion?: number | string;
  sheet: string;
  posX: number;
  posY: number;
  size?: NodeSize;
  /** JavaScript source run by the node. */
  process?: string;
  data?: unknown;
  handles?: NodeHandles;
  embedding?: number[];
  embeddingModel?: string;
  embeddingHash?: string;
  [extra: string]: unknown;
}

export interface GraphEdge {
  _key: string;
  graphKey: string;
  sheet: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
  label?: string;
  [extra: string]: unknown;
}

export interface NodeTypeConfig {
  _key: string;
  workspace: string;
  displayName: string;
  description?: string;
  category?: string;
  icon?: string;
  node?: { handles?: NodeHandles; process?: string; size?: NodeSize; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** Body of PUT /api/graphs/:graphKey and answer of GET (export). */
export interface GraphDocument {
  graph: Graph;
  nodes: GraphNode[];
  edges: GraphEdge[];
  nodeConfigs: NodeTypeConfig[];
}

/** Built-in node types need no NodeTypeConfig. */
export const BUILT_IN_NODE_TYPES = ['starter', 'return', 'html', 'entryType'] as const;

import { NodeHandles } from '../graph/graph.types';

/**
 * A change the model proposes through a propose_* tool. Never applied by the loop:
 * a human approves or rejects it. Discriminated by `type`; every action carries the model's `reason`.
 */

export interface CreateNodePayload {
  /** Optional local key chosen by the model (lets a batch connect edges to the new node); generated when absent. */
  nodeKey?: string;
  typeKey: string;
  sheet: string;
  posX: number;
  posY: number;
  process?: string;
  handles?: NodeHandles;
  data?: unknown;
}

export interface CreateEdgePayload {
  edgeKey?: string;
  sourceKey: string;
  sourceHandle: string;
  targetKey: string;
  targetHandle: string;
  sheet: string;
  label?: string;
}

export interface UpdateNodePayload {
  nodeKey: string;
  /** Field path → new value; paths use dots for nesting ("data.minGames", "process"). */
  changes: Record<string, unknown>;
}

export interface MoveNodePayload {
  nodeKey: string;
  posX: number;
  posY: number;
}

export type ProposedAction =
  | { type: 'create_node'; payload: CreateNodePayload; reason: string }
  | { type: 'create_edge'; payload: CreateEdgePayload; reason: string }
  | { type: 'delete_node'; payload: { nodeKey: string }; reason: string }
  | { type: 'update_node'; payload: UpdateNodePayload; reason: string }
  | { type: 'move_node'; payload: MoveNodePayload; reason: string }
  | { type: 'delete_edge'; payload: { edgeKey: string }; reason: string }
  | { type: 'batch'; payload: { actions: ProposedAction[] }; reason: string };

export type ProposedActionType = ProposedAction['type'];

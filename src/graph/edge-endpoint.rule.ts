import { GraphEdge, NodeHandles } from './graph.types';

/** handle id → the directions it is declared with ("in", "out"); null when the node declares no handles. */
export type DeclaredHandles = Map<string, Set<string>> | null;

/** A broken end of an edge: which field of the edge, and why. */
export interface EdgeEndpointProblem {
  field: 'source' | 'target' | 'sourceHandle' | 'targetHandle';
  problem: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The handles a node declares, by id; null when it declares none (it then accepts any handle id). */
export function declaredHandles(handles: NodeHandles | undefined): DeclaredHandles {
  if (!isRecord(handles)) return null;
  const groups = Object.values(handles).filter(isRecord);
  if (groups.length === 0) return null;
  const byId = new Map<string, Set<string>>();
  for (const group of groups) {
    const points: unknown[] = Array.isArray(group.point) ? group.point : [];
    for (const point of points) {
      if (!isRecord(point) || typeof point.id !== 'string') continue;
      const directions = byId.get(point.id) ?? new Set<string>();
      directions.add(String(point.type));
      byId.set(point.id, directions);
    }
  }
  return byId;
}

/**
 * The integrity rule of one end of an edge, shared by the graph import and the change feed: the node
 * exists (a key of `handlesByNode`), and when it declares handles, the edge names one of them of the
 * right direction (`out` where the edge leaves, `in` where it enters). Null when that end is sound.
 */
export function edgeEndpointProblem(
  edge: GraphEdge,
  end: 'source' | 'target',
  handlesByNode: ReadonlyMap<string, DeclaredHandles>,
): EdgeEndpointProblem | null {
  const nodeKey = edge[end];
  if (typeof nodeKey !== 'string') return null;
  if (!handlesByNode.has(nodeKey)) return { field: end, problem: `${end} node "${nodeKey}" does not exist` };
  const handles = handlesByNode.get(nodeKey);
  const handleField = end === 'source' ? 'sourceHandle' : 'targetHandle';
  const handleId = edge[handleField];
  if (!handles || typeof handleId !== 'string') return null;
  const expected = end === 'source' ? 'out' : 'in';
  const directions = handles.get(handleId);
  if (!directions) return { field: handleField, problem: `node "${nodeKey}" has no handle "${handleId}"` };
  if (!directions.has(expected))
    return { field: handleField, problem: `handle "${handleId}" of node "${nodeKey}" is not an "${expected}" handle` };
  return null;
}

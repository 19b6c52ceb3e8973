import { HandleGroup, NodeHandles } from '../graph/graph.types';
import { HandleSummary } from '../conversation/graph-rag-context';

/**
 * Compacts a node's (or a type's) handles to side + points, in document order. Stored documents
 * come from Nodius as they are, so malformed groups or points are skipped rather than trusted.
 */
export function summarizeHandles(handles: NodeHandles | undefined | null): HandleSummary[] {
  if (!handles || typeof handles !== 'object') return [];
  const summaries: HandleSummary[] = [];
  for (const [side, group] of Object.entries(handles) as Array<[string, HandleGroup | undefined]>) {
    if (!group || !Array.isArray(group.point)) continue;
    const points = group.point
      .filter((point) => point && typeof point === 'object' && (point.type === 'in' || point.type === 'out'))
      .map((point) => ({ id: String(point.id), type: point.type, accept: String(point.accept ?? 'any') }));
    if (points.length > 0) summaries.push({ side, points });
  }
  return summaries;
}

/**
 * The model-facing form of a node's handles: one `side:type(accept)` per point, e.g.
 * "R:out(any), L:in(string)". With `withIds`, the point id follows, e.g. "R:out(any)#R-0",
 * which the model needs to name an edge's handles.
 */
export function formatHandles(summaries: HandleSummary[], options: { withIds?: boolean } = {}): string {
  return summaries
    .flatMap((summary) =>
      summary.points.map(
        (point) => `${summary.side}:${point.type}(${point.accept})${options.withIds ? `#${point.id}` : ''}`,
      ),
    )
    .join(', ');
}

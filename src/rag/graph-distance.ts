import { EdgeDirection } from '../graph/graph-data-source';
import { GraphEdge } from '../graph/graph.types';

/**
 * Hop distance from `start` to every node reachable over `edges` (a BFS over an already-collected
 * neighbourhood): `out` follows edges from source to target, `in` backwards, `any` both ways.
 * `start` is at 0; unreachable nodes are absent.
 */
export function distancesFrom(
  start: string,
  edges: GraphEdge[],
  direction: EdgeDirection = 'any',
): Map<string, number> {
  const adjacency = new Map<string, string[]>();
  const link = (from: string, to: string) => {
    const list = adjacency.get(from);
    if (list) list.push(to);
    else adjacency.set(from, [to]);
  };
  for (const edge of edges) {
    if (direction !== 'in') link(edge.source, edge.target);
    if (direction !== 'out') link(edge.target, edge.source);
  }
  const distances = new Map([[start, 0]]);
  let frontier = [start];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const key of frontier) {
      for (const neighbor of adjacency.get(key) ?? []) {
        if (distances.has(neighbor)) continue;
        distances.set(neighbor, (distances.get(key) as number) + 1);
        next.push(neighbor);
      }
    }
    frontier = next;
  }
  return distances;
}

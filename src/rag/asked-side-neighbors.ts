import { NodeNeighborhood } from '../graph/graph-data-source';
import { GraphNode } from '../graph/graph.types';
import { SelectedNode } from './context-node.selector';
import { FlowDirection } from './flow-direction';
import { distancesFrom } from './graph-distance';

/** At most this many nodes on the asked side of the node a flow question names are moved next to it. */
export const ASKED_SIDE_NEIGHBORS = 3;

/**
 * The nodes one edge from `anchor` on the side the question asks about (its successors for
 * "what happens after", its predecessors for "what feeds"), in the neighbourhood's edge order, at
 * most `limit`.
 */
export function askedSideNeighbors(
  anchor: string,
  neighborhood: NodeNeighborhood,
  flow: FlowDirection,
  limit: number = ASKED_SIDE_NEIGHBORS,
): GraphNode[] {
  const byKey = new Map(neighborhood.nodes.map((node) => [node._key, node]));
  const next: GraphNode[] = [];
  for (const [key, distance] of distancesFrom(anchor, neighborhood.edges, flow === 'downstream' ? 'out' : 'in')) {
    if (next.length >= limit) break;
    const node = byKey.get(key);
    if (distance === 1 && node) next.push(node);
  }
  return next;
}

/**
 * `selected` with `followers` moved (or brought in) right after `anchor`, never before the
 * `pinned` first entries (the mentions), and cut back to `maxNodes`: what the model reads next to
 * the node a flow question names is what that question asks for. A follower already selected keeps
 * its origin and score; a new one comes as a neighbour. Unchanged when the anchor is not selected.
 */
export function placeAfterAnchor(
  selected: readonly SelectedNode[],
  anchor: string,
  followers: readonly GraphNode[],
  pinned: number,
  maxNodes: number,
): SelectedNode[] {
  const moving = new Set(followers.map((node) => node._key));
  moving.delete(anchor);
  if (moving.size === 0 || !selected.some((entry) => entry.node._key === anchor)) return [...selected];
  const existing = new Map(selected.map((entry) => [entry.node._key, entry]));
  const rest = selected.filter((entry) => !moving.has(entry.node._key));
  const at = Math.max(rest.findIndex((entry) => entry.node._key === anchor) + 1, pinned);
  const placed = followers
    .filter((node) => moving.has(node._key))
    .map((node): SelectedNode => existing.get(node._key) ?? { node, origin: 'neighbor' });
  return [...rest.slice(0, at), ...placed, ...rest.slice(at)].slice(0, maxNodes);
}

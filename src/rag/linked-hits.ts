import { NodeNeighborhood, ScoredNode } from '../graph/graph-data-source';
import { distancesFrom } from './graph-distance';

/**
 * The search hits one edge away from the expansion seeds (the best hits), as a ranked list to fuse
 * with the search lists: by the rank of the seed they touch, then by their own rank. Fused, it lifts
 * the hits that are wired to the best ones (what feeds them, what they feed, the tools and models
 * of an agent) above weak matches elsewhere in the graph: docs/retrieval.md, "Graph-aware ranking".
 */
export function hitsLinkedToSeeds(hits: readonly ScoredNode[], seeds: readonly string[], neighborhoods: readonly NodeNeighborhood[]): ScoredNode[] {
  const rankOf = new Map(hits.map((hit, index) => [hit.node._key, index]));
  const linked: ScoredNode[] = [];
  const taken = new Set<string>();
  neighborhoods.forEach((neighborhood, seedIndex) => {
    const adjacent: ScoredNode[] = [];
    for (const [key, distance] of distancesFrom(seeds[seedIndex], neighborhood.edges)) {
      const rank = rankOf.get(key);
      if (distance !== 1 || rank === undefined || taken.has(key)) continue;
      taken.add(key);
      adjacent.push(hits[rank]);
    }
    adjacent.sort((a, b) => (rankOf.get(a.node._key) as number) - (rankOf.get(b.node._key) as number));
    linked.push(...adjacent);
  });
  return linked;
}

import { NodeNeighborhood, ScoredNode } from '../graph/graph-data-source';
import { FlowDirection } from './flow-direction';
import { distancesFrom } from './graph-distance';

/**
 * Graph-aware ranking: each search hit one edge away from an expansion seed (one of the best hits)
 * gains `share` × that seed's score, once per such seed, in either direction. The nodes wired to the
 * best hits (what feeds them, what they feed, an agent's tools and models) rise above weak matches
 * elsewhere in the graph; a hit next to several good ones rises most. When the question asks about
 * one direction (`flow`: what comes after, what feeds), the hits on that side of a seed gain twice
 * the share and those on the other side nothing. Hits are re-sorted by their new score (ties keep
 * their order); nothing is added.
 */
export function boostHitsLinkedToSeeds(
  hits: readonly ScoredNode[],
  seeds: readonly string[],
  neighborhoods: readonly NodeNeighborhood[],
  share: number,
  flow: FlowDirection | null = null,
): ScoredNode[] {
  const scoreOf = new Map(hits.map((hit) => [hit.node._key, hit.score]));
  const boosted = new Map(scoreOf);
  neighborhoods.forEach((neighborhood, seedIndex) => {
    const seed = seeds[seedIndex];
    const seedScore = scoreOf.get(seed) ?? 0;
    if (seedScore <= 0) return;
    const asked = flow ? distancesFrom(seed, neighborhood.edges, flow === 'downstream' ? 'out' : 'in') : null;
    for (const [key, distance] of distancesFrom(seed, neighborhood.edges)) {
      const current = boosted.get(key);
      if (distance !== 1 || current === undefined) continue;
      const factor = asked ? (asked.get(key) === 1 ? 2 : 0) : 1;
      boosted.set(key, current + factor * share * seedScore);
    }
  });
  return hits
    .map((hit) => ({ node: hit.node, score: boosted.get(hit.node._key) as number }))
    .sort((a, b) => b.score - a.score);
}

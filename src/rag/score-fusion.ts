import { ScoredNode } from '../graph/graph-data-source';

/** One ranked list of hits and how much its best hit is worth in the fusion. */
export interface WeightedHits {
  hits: readonly ScoredNode[];
  weight: number;
}

/**
 * Score fusion: each list's scores are divided by its best score, so the best hit of a list is
 * worth the list's weight and the others their share of it; a node's fused score is the sum over
 * the lists that have it. Unlike rank fusion, a clear BM25 winner stays ahead of a string of
 * near-equal cosines, and a list of flat scores (a question no word of which stands out) lets the
 * other decide. Best first; equal scores keep the order the nodes were first met in (the first
 * list's order, then the next's). A list whose best score is not positive counts for nothing.
 */
export function fuseByScore(lists: readonly WeightedHits[]): ScoredNode[] {
  const fused = new Map<string, ScoredNode>();
  for (const { hits, weight } of lists) {
    const best = hits[0]?.score ?? 0;
    if (best <= 0 || weight <= 0) continue;
    for (const hit of hits) {
      const share = (weight * Math.max(0, hit.score)) / best;
      const entry = fused.get(hit.node._key);
      if (entry) entry.score += share;
      else fused.set(hit.node._key, { node: hit.node, score: share });
    }
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

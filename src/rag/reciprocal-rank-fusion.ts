/** The usual RRF constant: dampens the weight of the very first ranks (Cormack et al., 2009). */
export const RRF_K = 60;

export interface FusedItem<T> {
  item: T;
  /** Sum over the lists of 1 / (k + rank), ranks starting at 1. */
  score: number;
}

/**
 * Reciprocal rank fusion: merges ranked lists whose scores are not comparable (BM25 vs cosine)
 * using ranks only. Ties are broken by the best rank reached in any list, then by list order,
 * so the result is deterministic. The first occurrence of an item is the one kept.
 */
export function fuseByReciprocalRank<T>(lists: T[][], keyOf: (item: T) => string, k = RRF_K): FusedItem<T>[] {
  const fused = new Map<string, { item: T; score: number; bestRank: number; firstSeen: number }>();
  let seen = 0;
  lists.forEach((list) => {
    list.forEach((item, index) => {
      const key = keyOf(item);
      const rank = index + 1;
      const entry = fused.get(key);
      if (entry) {
        entry.score += 1 / (k + rank);
        entry.bestRank = Math.min(entry.bestRank, rank);
      } else {
        fused.set(key, { item, score: 1 / (k + rank), bestRank: rank, firstSeen: seen++ });
      }
    });
  });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.bestRank - b.bestRank || a.firstSeen - b.firstSeen)
    .map(({ item, score }) => ({ item, score }));
}

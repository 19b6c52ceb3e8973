/** Share of the relevant keys found in the first `k` ranked keys (0 when nothing is relevant). */
export function recallAtK(ranked: readonly string[], relevant: readonly string[], k: number): number {
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((key) => top.has(key)).length / relevant.length;
}

/** 1 / rank of the first relevant key within the first `k` (MRR@k); 0 when none is there. */
export function reciprocalRankAtK(ranked: readonly string[], relevant: readonly string[], k: number): number {
  const wanted = new Set(relevant);
  const index = ranked.slice(0, k).findIndex((key) => wanted.has(key));
  return index < 0 ? 0 : 1 / (index + 1);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export interface Distribution {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** The usual percentiles of some samples (any order). */
export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length > 0 ? sorted[sorted.length - 1] : Number.NaN,
  };
}

/** Milliseconds of CPU (user + system) this process spent between two process.cpuUsage() readings. */
export function cpuMsBetween(start: NodeJS.CpuUsage, end: NodeJS.CpuUsage): number {
  return (end.user - start.user + end.system - start.system) / 1000;
}

/** Milliseconds of CPU this process spent since `since` (a process.cpuUsage() reading). */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  return cpuMsBetween(since, process.cpuUsage());
}

import { readFileSync } from 'node:fs';

/** Peak resident set size of a process (Linux /proc VmHWM; NaN elsewhere). */
export function peakRss(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

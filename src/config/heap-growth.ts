import { setFlagsFromString } from 'node:v8';

/**
 * Caps how far V8 lets the old generation grow past what the last full GC found alive, at
 * 1 + percent / 100 (0 leaves V8's own factor, which reaches 4 when the process allocates fast).
 * A burst of streams promotes each conversation's short-lived objects (SDK chunks, socket frames)
 * out of the young generation; with V8's factor they pile up as garbage until the heap is several
 * times its live size (1,000 concurrent conversations: peak RSS ~540 MB for ~100 MB alive, see
 * docs/benchmarks.md "Round three"; 35 since round four, when new conversations' setups go first and
 * more of a burst is in flight at once). HEAP_GROWING_PERCENT, 35 by default. Applied by the process
 * that serves (main.ts), not by in-process tests. The flag is read at every GC, so setting it after
 * start takes effect.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

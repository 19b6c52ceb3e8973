import { setFlagsFromString } from 'node:v8';

/**
 * Caps the old generation at 1 + percent / 100 times what the last full GC found alive (0: V8's own factor, up to 4):
 * a burst of streams promotes short-lived objects that would otherwise pile up as garbage. Read at every GC.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

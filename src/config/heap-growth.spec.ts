import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

/**
 * Runs a workload that keeps a little and promotes much garbage (as a burst of streams does) in a
 * fresh Node process, after applyHeapGrowth(percent), and returns the largest V8 heap it reserved, in MB.
 * A child process: V8 flags are process-wide, and the heap's growth is only seen from a fresh heap.
 */
function peakHeapMb(percent: number): number {
  const script = `
    require(${JSON.stringify(path.join(__dirname, 'heap-growth.ts'))}).applyHeapGrowth(${percent});
    const kept = [];
    let peak = 0;
    for (let round = 0; round < 60; round += 1) {
      const garbage = [];
      for (let index = 0; index < 200000; index += 1) garbage.push({ index, label: 'x' + index });
      kept.push(garbage.slice(0, 2000));
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(String(peak / 1e6));`;
  const register = path.join(__dirname, '../../test/support/swc-register.js');
  return Number(execFileSync(process.execPath, ['--require', register, '-e', script], { encoding: 'utf8' }));
}

describe('applyHeapGrowth', () => {
  it("keeps a garbage-heavy process's heap well below what V8's own growth factor lets it reach", () => {
    const ownFactor = peakHeapMb(0);
    const capped = peakHeapMb(50);
    // Measured: about 137 MB with V8's factor, 87 MB capped at 50 %; the bar leaves room for other machines.
    expect(capped).toBeLessThan(ownFactor * 0.85);
  }, 60_000);
});

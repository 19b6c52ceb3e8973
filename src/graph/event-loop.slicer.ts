import { performance } from 'node:perf_hooks';

/** Longest stretch of synchronous work between two turns of the event loop. */
export const DEFAULT_SLICE_MS = 10;

/**
 * Cuts long synchronous work (validating, decoding or indexing tens of thousands of nodes) into
 * slices of about `sliceMs`, with one turn of the event loop between slices, so health checks,
 * socket events and streams keep flowing while a large graph is imported or indexed. Call
 * `maybeYield()` between items: it costs a clock read until the slice is spent.
 */
export class EventLoopSlicer {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  /** Resolves at once while the slice lasts; otherwise after a turn of the event loop (setImmediate), starting the next slice. */
  async maybeYield(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}

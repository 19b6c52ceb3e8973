import { EventLoopSlicer } from '../event-loop.slicer';

/**
 * Work written as a generator that yields between steps (unpacking an index: NodeSearchIndex.unpacking),
 * run at once, or in slices of the event loop.
 */
export type Stepwise<T> = Generator<void, T, void>;

/** Runs every step now; the work's result. */
export function runAllSteps<T>(steps: Stepwise<T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** Runs the steps with a turn of the event loop whenever a slice is spent (EventLoopSlicer); the work's result. */
export async function runStepsInSlices<T>(steps: Stepwise<T>, slicer = new EventLoopSlicer()): Promise<T> {
  let step = steps.next();
  while (!step.done) {
    await slicer.maybeYield();
    step = steps.next();
  }
  return step.value;
}

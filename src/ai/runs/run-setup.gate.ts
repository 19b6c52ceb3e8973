import { setImmediate as nextTurn } from 'node:timers/promises';

/** A run's place among the runs being set up (see RunSetupGate). */
export interface RunSetupSlot {
  /** Lets timers and sockets run before the setup goes on; the slot is kept. */
  pause(): Promise<void>;
  /** The setup is over (or failed): the next waiting run gets the slot in a later turn. Idempotent. */
  release(): void;
}

/**
 * Runs set up at once by default. A setup (thread, lease, retrieval, commit, the SDK request) is a
 * few ms of CPU with the embedded store and a few store round trips with a remote one: more slots
 * only help the latter, and each one lengthens a turn of the event loop by one setup step.
 */
export const DEFAULT_RUN_SETUP_SLOTS = 4;

/**
 * Admission of runs into their setup, so a burst of requests cannot stall the event loop. With a
 * synchronous store and a warm retrieval cache, a run's setup is one chain of already-resolved
 * promises: without this, every request read in one poll phase was set up back to back (~6 s for
 * 1,000 at once) before any timer, socket write or upstream byte got a turn.
 *
 * At most `slots` runs are between enter() and release(); the others wait in arrival order (never
 * refused). A slot is always handed over in a later turn of the event loop (setImmediate), also when
 * one is free, and pause() yields inside a setup, so one turn runs at most `slots` setup steps.
 */
export class RunSetupGate {
  private active = 0;
  private readonly waiting: Array<(slot: RunSetupSlot) => void> = [];
  /** Promises of waitingAtMost(count), by count. */
  private readonly shrinking = new Map<number, { promise: Promise<void>; resolve: () => void }>();

  constructor(private readonly slots = DEFAULT_RUN_SETUP_SLOTS) {
    if (!Number.isInteger(slots) || slots < 1)
      throw new RangeError(`RunSetupGate: slots must be a positive integer, got ${slots}`);
  }

  /** Runs holding a slot. */
  get inSetup(): number {
    return this.active;
  }

  /** Runs waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves once at most `count` runs wait for a slot (at once when no more do). */
  waitingAtMost(count: number): Promise<void> {
    if (this.waiting.length <= count) return Promise.resolve();
    let pending = this.shrinking.get(count);
    if (!pending) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      pending = { promise, resolve };
      this.shrinking.set(count, pending);
    }
    return pending.promise;
  }

  /** Resolves, in a later turn of the event loop, once this run may set up; release the slot in every case. */
  enter(): Promise<RunSetupSlot> {
    return new Promise((resolve) => {
      if (this.active < this.slots) {
        this.active++;
        this.grant(resolve);
      } else {
        this.waiting.push(resolve);
      }
    });
  }

  private grant(resolve: (slot: RunSetupSlot) => void): void {
    let released = false;
    const slot: RunSetupSlot = {
      pause: () => nextTurn(),
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiting.shift();
        if (next) this.grant(next);
        else this.active--;
        const left = this.waiting.length;
        for (const [count, pending] of this.shrinking) {
          if (left > count) continue;
          pending.resolve();
          this.shrinking.delete(count);
        }
      },
    };
    setImmediate(() => resolve(slot));
  }
}

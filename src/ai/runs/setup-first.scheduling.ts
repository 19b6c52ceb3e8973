import { performance } from 'node:perf_hooks';
import { StreamPacer } from '../agent/agent-run';
import { RunSetupGate } from './run-setup.gate';
import { TurnPacedQueue } from './turn-paced.queue';

/** Longest a stream of one upstream call gives way to waiting setups, in all (AI_SETUP_FIRST_MAX_MS). */
export const DEFAULT_SETUP_FIRST_MAX_MS = 2_000;

/**
 * Runs waiting for their setup beyond which running streams give way. A shorter queue is drained
 * within a few hundred ms with the process shared evenly, and giving way has a price: every stream
 * in flight at once holds its request and what the upstream sent meanwhile (memory, GC, fewer writes
 * grouped). At 100 simultaneous new conversations that price was ~0.5 ms of CPU per conversation
 * (throughput 0.88 of the bare relay's against 0.95), for a median wait of 150 instead of 290 ms.
 */
export const SETUP_FIRST_MIN_WAITING = 128;

/**
 * Streams giving way at once, at most. Each keeps its request and what the upstream sent meanwhile
 * (a whole answer from a fast upstream: ~80 KB, read once by the socket and once more into the
 * body's stream); all 1,000 of a burst held at once peaked at 379–405 MB of RSS, 512 at 348–377 MB,
 * with the burst's median wait for its request 1.32–1.46 s against 1.28–1.31 s.
 */
export const SETUP_FIRST_MAX_HELD = 512;

/**
 * Streams that go on per turn of the event loop once they stop giving way. Each relays at once what
 * it buffered meanwhile (a whole answer from a fast upstream: ~1-3 ms of CPU); with 3 the longest
 * stall of a 1,000-conversation burst stayed at 37-95 ms, where 8 let it reach 98-151 ms.
 */
export const STREAMS_RESUMED_PER_TURN = 3;

export interface SetupFirstOptions {
  /** Longest a stream gives way per upstream call, in all (0: never). */
  maxMs?: number;
  /** Streams give way while more runs than this wait for their setup. */
  minWaiting?: number;
  /** Streams that go on per turn of the event loop. */
  resumedPerTurn?: number;
  /** Streams giving way at once, at most. */
  maxHeld?: number;
}

const NEVER: StreamPacer = { beforeChunk: () => null };

/**
 * New conversations first: while more than `minWaiting` runs wait for their setup (RunSetupGate),
 * the streams already running give way between two chunks, until no more do.
 *
 * When the process is CPU-bound (a burst of new conversations), its time is shared between the
 * setups and the streams of the conversations set up before them. Shared evenly, admission settles
 * at the rate conversations finish: the last of 1,000 new conversations waited seconds for its
 * request to leave. A request sent early lets the provider work in parallel (its own time to a
 * first token is hundreds of ms), and a stream that waits loses nothing: its bytes wait in the
 * socket. So setups go first, within bounds:
 * - a stream's first chunk is relayed at once (its user sees the answer start);
 * - a stream gives way for at most `maxMs` per upstream call, in all, so a flood of new
 *   conversations cannot starve it;
 * - at most `maxHeld` streams give way at once (each holds its request and the upstream's bytes);
 * - streams go on again at most `resumedPerTurn` per turn, so the event loop stays responsive;
 * - a stopped run goes on at once (to end with its partial text).
 * Below a burst (one conversation at a time, or a hundred at once) a pacer costs one comparison per
 * chunk.
 */
export class SetupFirstScheduling {
  /** Streams that may go on, a few per turn of the event loop. */
  private readonly resumable: TurnPacedQueue;
  /** Streams giving way now. */
  private held = 0;

  private readonly maxMs: number;
  private readonly minWaiting: number;
  private readonly maxHeld: number;

  constructor(
    private readonly gate: RunSetupGate,
    options: SetupFirstOptions = {},
  ) {
    const {
      maxMs = DEFAULT_SETUP_FIRST_MAX_MS,
      minWaiting = SETUP_FIRST_MIN_WAITING,
      resumedPerTurn = STREAMS_RESUMED_PER_TURN,
      maxHeld = SETUP_FIRST_MAX_HELD,
    } = options;
    this.maxMs = maxMs;
    this.minWaiting = minWaiting;
    this.maxHeld = maxHeld;
    if (!Number.isFinite(maxMs) || maxMs < 0)
      throw new RangeError(`SetupFirstScheduling: maxMs must be >= 0, got ${maxMs}`);
    if (!Number.isInteger(minWaiting) || minWaiting < 0)
      throw new RangeError(`SetupFirstScheduling: minWaiting must be a non-negative integer, got ${minWaiting}`);
    if (!Number.isInteger(maxHeld) || maxHeld < 0)
      throw new RangeError(`SetupFirstScheduling: maxHeld must be a non-negative integer, got ${maxHeld}`);
    if (!Number.isInteger(resumedPerTurn) || resumedPerTurn < 1) {
      throw new RangeError(`SetupFirstScheduling: resumedPerTurn must be a positive integer, got ${resumedPerTurn}`);
    }
    // Each task resolves a stream's wait: it cannot throw.
    this.resumable = new TurnPacedQueue(resumedPerTurn, () => undefined);
  }

  /** Streams giving way now. */
  get streamsGivingWay(): number {
    return this.held;
  }

  /** The pacer of one upstream call's stream, aborted with `signal`. */
  pacer(signal: AbortSignal): StreamPacer {
    if (this.maxMs === 0) return NEVER;
    let spentMs = 0;
    let first = true;
    return {
      beforeChunk: () => {
        if (first) {
          first = false;
          return null;
        }
        if (this.gate.queued <= this.minWaiting || spentMs >= this.maxMs || signal.aborted || this.held >= this.maxHeld)
          return null;
        this.held++;
        const since = performance.now();
        return this.giveWay(this.maxMs - spentMs, signal).then((budgetSpent) => {
          this.held--;
          // A timer may fire a fraction of a ms early by the performance clock: its end is the budget's.
          spentMs = budgetSpent ? this.maxMs : spentMs + (performance.now() - since);
        });
      },
    };
  }

  /** Resolves true when `maxMs` ran out (not when no more runs wait or the run was stopped). */
  private giveWay(maxMs: number, signal: AbortSignal): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      const goOn = (budgetSpent: boolean): void => {
        if (!settle()) return;
        this.resumable.post(() => resolve(budgetSpent));
      };
      const onAbort = (): void => {
        if (settle()) resolve(false);
      };
      const timer = setTimeout(() => goOn(true), maxMs);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.gate.waitingAtMost(this.minWaiting).then(() => goOn(false));
    });
  }
}

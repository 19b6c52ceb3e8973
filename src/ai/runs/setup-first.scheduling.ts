import { performance } from 'node:perf_hooks';
import { StreamPacer } from '../agent/agent-run';
import { RunSetupGate } from './run-setup.gate';

/** Longest a stream of one upstream call gives way to waiting setups, in all (AI_SETUP_FIRST_MAX_MS). */
export const DEFAULT_SETUP_FIRST_MAX_MS = 2_000;

/**
 * Streams that go on per turn of the event loop once they stop giving way. Each relays at once what
 * it buffered meanwhile (a whole answer from a fast upstream: ~1-3 ms of CPU); 3 kept the longest
 * stall of a 1,000-conversation burst at 37-50 ms, where 8 let it reach 98-151 ms.
 */
export const STREAMS_RESUMED_PER_TURN = 3;

const NEVER: StreamPacer = { beforeChunk: () => null };

/**
 * New conversations first: while runs wait for their setup (RunSetupGate), the streams already
 * running give way between two chunks, until none waits (docs/agent.md, "A burst of new
 * conversations").
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
 * - streams go on again at most `resumedPerTurn` per turn, so the event loop stays responsive;
 * - a stopped run goes on at once (to end with its partial text).
 * With one conversation at a time nothing waits and a pacer costs one comparison per chunk.
 */
export class SetupFirstScheduling {
  private readonly resumable: Array<() => void> = [];
  private resuming = false;

  constructor(
    private readonly gate: RunSetupGate,
    private readonly maxMs = DEFAULT_SETUP_FIRST_MAX_MS,
    private readonly resumedPerTurn = STREAMS_RESUMED_PER_TURN,
  ) {
    if (!Number.isFinite(maxMs) || maxMs < 0) throw new RangeError(`SetupFirstScheduling: maxMs must be >= 0, got ${maxMs}`);
    if (!Number.isInteger(resumedPerTurn) || resumedPerTurn < 1) {
      throw new RangeError(`SetupFirstScheduling: resumedPerTurn must be a positive integer, got ${resumedPerTurn}`);
    }
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
        if (this.gate.queued === 0 || spentMs >= this.maxMs || signal.aborted) return null;
        const since = performance.now();
        return this.giveWay(this.maxMs - spentMs, signal).then(() => {
          spentMs += performance.now() - since;
        });
      },
    };
  }

  private giveWay(maxMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      const goOn = (): void => {
        if (!settle()) return;
        this.resumable.push(resolve);
        this.scheduleResume();
      };
      const onAbort = (): void => {
        if (settle()) resolve();
      };
      const timer = setTimeout(goOn, maxMs);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.gate.noneWaiting().then(goOn);
    });
  }

  private scheduleResume(): void {
    if (this.resuming) return;
    this.resuming = true;
    setImmediate(this.resumeSome);
  }

  private readonly resumeSome = (): void => {
    this.resuming = false;
    for (let resumed = 0; resumed < this.resumedPerTurn && this.resumable.length > 0; resumed++) {
      (this.resumable.shift() as () => void)();
    }
    if (this.resumable.length > 0) this.scheduleResume();
  };
}

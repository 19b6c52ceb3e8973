import { performance } from 'node:perf_hooks';
import { StreamPacer } from '../agent/agent-run';

/** Time after which, in one turn of the event loop, no more streams start relaying (AI_STREAM_TURN_BUDGET_MS). */
export const DEFAULT_STREAM_TURN_BUDGET_MS = 5;

/** Streams put off that may go on in one turn, at most (each still only while the turn's share lasts). */
const MAX_RESUMED_PER_TURN = 64;

/**
 * A share of each turn of the event loop for the relay of the streams, in all.
 *
 * Hundreds of streams in flight have data at once: one turn reads every socket that has some, and
 * each stream relays what it got (SSE parsing, socket writes), so one turn could last 50-150 ms, and
 * timers, health checks and new messages waited as long. Here a stream asks before its first chunk
 * in a turn: once `budgetMs` went by since the turn's first stream started, it is put off to a later
 * turn (its bytes wait in undici's buffer, then in the upstream's socket). A stream that started
 * relaying in a turn relays all it has in it (its tokens leave in one socket event), so the streams'
 * part of a turn lasts at most the share plus one stream's work.
 *
 * The streams put off go on in the next turns, first put off first, each in its own immediate so
 * that one relays what it has before the next is let in, while the turn's share lasts.
 */
export class TurnBudget {
  /** When the current turn's first stream started; null between turns. */
  private turnStartedAt: number | null = null;
  /** Counts turns, so that a stream knows it was let in during this one. */
  private turn = 0;
  private readonly putOff: Array<() => void> = [];
  private resumeScheduled = false;

  constructor(
    private readonly budgetMs: number = DEFAULT_STREAM_TURN_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isFinite(budgetMs) || budgetMs < 0)
      throw new RangeError(`TurnBudget: budgetMs must be >= 0, got ${budgetMs}`);
  }

  /** Streams put off to a later turn now. */
  get waiting(): number {
    return this.putOff.length;
  }

  /** The pacer of one upstream call's stream. */
  pacer(): StreamPacer {
    if (this.budgetMs === 0) return { beforeChunk: () => null };
    let letInDuring = -1;
    return {
      beforeChunk: () => {
        if (this.turnStartedAt !== null && letInDuring === this.turn) return null;
        if (!this.spent()) {
          letInDuring = this.turn;
          return null;
        }
        return new Promise<void>((resolve) => {
          this.putOff.push(() => {
            letInDuring = this.turn;
            resolve();
          });
          this.scheduleResume();
        });
      },
    };
  }

  /** True when this turn's share is spent; starts the turn's clock when nothing started it yet. */
  private spent(): boolean {
    const now = this.now();
    if (this.turnStartedAt === null) {
      this.turnStartedAt = now;
      const turn = ++this.turn;
      // The turn's check phase; asked from a check phase (a resume), the next turn's: the resume
      // ends the turn itself then.
      setImmediate(() => this.endTurn(turn));
      return false;
    }
    return now - this.turnStartedAt >= this.budgetMs;
  }

  private endTurn(turn: number): void {
    if (this.turn === turn) this.turnStartedAt = null;
  }

  private scheduleResume(): void {
    if (this.resumeScheduled) return;
    this.resumeScheduled = true;
    // A timer (the next turn's timers phase, at least 1 ms later) measured shorter stalls than an
    // immediate (this turn's check phase) in the 1,000-conversation burst: 49-73 against 67-68 ms.
    setTimeout(this.resume, 0);
  }

  /**
   * In a timers phase: the immediates it sets run in this turn's check phase, after its reads, each
   * letting one stream in (its relay runs before the next immediate), while the turn has time left.
   */
  private readonly resume = (): void => {
    this.resumeScheduled = false;
    const count = Math.min(this.putOff.length, MAX_RESUMED_PER_TURN);
    for (let i = 0; i < count; i++) setImmediate(this.resumeOne);
    // After them: the turn ends here (a clock started by the first of them would run into the next
    // turn otherwise), and what is still put off waits for a later one.
    setImmediate(() => {
      this.endTurn(this.turn);
      if (this.putOff.length > 0) this.scheduleResume();
    });
  };

  private readonly resumeOne = (): void => {
    if (this.putOff.length === 0 || this.spent()) return;
    (this.putOff.shift() as () => void)();
  };
}

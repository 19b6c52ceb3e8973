import { CliIo } from './cli-context';

const BAR_WIDTH = 28;
/** Below this much work, plain (non-terminal) output prints no progress lines. */
const PLAIN_PROGRESS_MIN_TOTAL = 1_000;

/**
 * Progress of a long command: on a terminal one bar redrawn in place; otherwise (a pipe, a CI log)
 * a plain line at each tenth of large jobs, so logs stay readable.
 */
export class ProgressReporter {
  private readonly tty: boolean;
  private lastTenth = -1;
  private drawn = false;
  private lastDrawAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly io: CliIo,
    private readonly clock: () => number = Date.now,
  ) {
    this.tty = io.stdout.isTTY === true;
  }

  update(label: string, done: number, total: number, detail: string): void {
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    if (this.tty) {
      // Redrawn at most ~10 times a second (and always at the end).
      const now = this.clock();
      if (done < total && now - this.lastDrawAt < 100) return;
      this.lastDrawAt = now;
      const filled = Math.round(ratio * BAR_WIDTH);
      const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${done}/${total} ${detail}`;
      const width = this.io.stdout.columns ?? 120;
      this.io.stdout.write(`\r${line.slice(0, Math.max(20, width - 1)).padEnd(Math.max(20, width - 1))}`);
      this.drawn = true;
      return;
    }
    // Small graphs get no intermediate lines: the final line per graph says it all.
    if (total < PLAIN_PROGRESS_MIN_TOTAL) return;
    const tenth = Math.floor(ratio * 10);
    if (tenth === this.lastTenth) return;
    this.lastTenth = tenth;
    this.io.stdout.write(`${label}: ${done}/${total} (${Math.round(ratio * 100)}%) ${detail}\n`);
  }

  /** Ends the current bar (a new label starts a new one). */
  finish(): void {
    if (this.tty && this.drawn) this.io.stdout.write('\n');
    this.drawn = false;
    this.lastTenth = -1;
    this.lastDrawAt = Number.NEGATIVE_INFINITY;
  }
}

/** Buffered text goes out at most this long after its first fragment (every streaming transport). */
export const TOKEN_FLUSH_INTERVAL_MS = 10;
/** ...or at once when this much text is buffered. */
export const TOKEN_FLUSH_MAX_CHARS = 4096;

/** Something holding buffered text that it sends when asked. */
export interface Flushable {
  flush(): void;
}

/**
 * One timer for every streaming run of a transport (the gateway, the UI message stream): a run with buffered tokens asks to be flushed,
 * and all runs that asked during the same window are flushed together `intervalMs` after the first
 * ask. With 1,000 concurrent streams that is one timer per window instead of one per stream, and a
 * fragment waits at most `intervalMs` before it goes out. Pure: no Nest.
 */
export class TokenFlushScheduler {
  private readonly due = new Set<Flushable>();
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly intervalMs: number) {}

  schedule(target: Flushable): void {
    this.due.add(target);
    if (this.timer === null) this.timer = setTimeout(this.tick, this.intervalMs);
  }

  /** The target flushed on its own (terminal event, tool event, large buffer): nothing left to do for it. */
  cancel(target: Flushable): void {
    this.due.delete(target);
    if (this.due.size === 0 && this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /** Targets waiting for the next tick. */
  get pending(): number {
    return this.due.size;
  }

  private readonly tick = (): void => {
    this.timer = null;
    const batch = [...this.due];
    this.due.clear();
    for (const target of batch) target.flush();
  };
}

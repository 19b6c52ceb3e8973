import type { Flushable, TokenFlushScheduler } from './token-flush.scheduler';

/**
 * A run's streamed text, coalesced: fragments are buffered and sent as one piece by the shared scheduler (at most its
 * interval after the first), or at once when the buffer reaches `maxChars`. Its sink calls `flushNow()` before any
 * other event, so text and the events around it keep their order, and the pieces sent concatenate to exactly the
 * fragments received.
 */
export class TokenTextCoalescer implements Flushable {
  private buffer = '';

  constructor(
    private readonly scheduler: TokenFlushScheduler,
    private readonly maxChars: number,
    private readonly send: (text: string) => void,
  ) {}

  add(text: string): void {
    if (text.length === 0) return;
    this.buffer += text;
    if (this.buffer.length >= this.maxChars) this.flushNow();
    else this.scheduler.schedule(this);
  }

  /** Sends the buffered text now (before another event, or at the end), and takes it off the scheduler. */
  flushNow(): void {
    if (this.buffer.length === 0) return;
    this.scheduler.cancel(this);
    this.flush();
  }

  /** Sends the buffered text (the scheduler's tick). */
  flush(): void {
    if (this.buffer.length === 0) return;
    const text = this.buffer;
    this.buffer = '';
    this.send(text);
  }
}

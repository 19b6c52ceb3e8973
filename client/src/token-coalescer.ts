/** Default rendering throttle: about two frames (~32 ms). */
export const DEFAULT_COALESCE_MS = 32;

/**
 * Buffers text fragments and hands them on at most once per `intervalMs` (trailing edge), so a
 * fast stream re-renders a UI a few dozen times a second instead of once per `ai:token`. `flush()`
 * hands on what is buffered at once: callers flush before a tool event or a terminal event, so text
 * and tools keep their order. `intervalMs` 0 hands every fragment on as it comes.
 */
export class TokenCoalescer {
  private buffer = '';
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly deliver: (text: string) => void,
  ) {}

  push(fragment: string): void {
    if (fragment.length === 0) return;
    if (this.intervalMs <= 0) {
      this.deliver(fragment);
      return;
    }
    this.buffer += fragment;
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const text = this.buffer;
    this.buffer = '';
    this.deliver(text);
  }
}

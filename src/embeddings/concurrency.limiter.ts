import { throwIfAborted } from '../providers/llm-abort.error';

/**
 * A counting semaphore: at most `limit` holders at once, the others wait in FIFO order. `acquire`
 * rejects (LlmAbortError) when its signal fires while it waits.
 */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: Array<{ grant: () => void; signal?: AbortSignal; onAbort?: () => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`ConcurrencyLimiter needs a positive integer limit, got ${limit}`);
  }

  get inUse(): number {
    return this.active;
  }

  /** Resolves with the release function (call it exactly once). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    throwIfAborted(signal);
    if (this.active < this.limit) {
      this.active += 1;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: { grant: () => void; signal?: AbortSignal; onAbort?: () => void } = { grant: resolve, signal };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.waiting.indexOf(waiter);
          if (index >= 0) this.waiting.splice(index, 1);
          try {
            throwIfAborted(signal);
          } catch (error) {
            reject(error);
          }
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiting.push(waiter);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) {
        // The slot passes straight to the next waiter: `active` stays the same.
        if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
        next.grant();
      } else {
        this.active -= 1;
      }
    };
  }
}

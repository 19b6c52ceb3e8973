import { isAbortError, LlmAbortError } from './llm-abort.error';
import { StreamIdleTimeoutError } from './stream-idle-timeout.error';

/** Default silence allowed between two upstream events (providers send pings well within it). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 90_000;
/** Default time until the response headers (the SDKs' own timeout): a non-streaming answer's headers come with the whole answer. */
export const DEFAULT_UPSTREAM_RESPONSE_TIMEOUT_MS = 300_000;

/**
 * One upstream streaming request's cancellation: the caller's signal and an idle timer (the SDKs'
 * timeouts stop at the response headers, so a stream that stalls afterwards would hang forever)
 * both abort the signal given to the SDK. `touch()` on every upstream event; `failure()` turns what
 * the SDK threw into LlmAbortError, StreamIdleTimeoutError or the error itself.
 */
export class UpstreamStreamGuard {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private idle = false;
  private held = false;
  private readonly onCallerAbort = () => this.controller.abort();

  constructor(
    private readonly provider: string,
    private readonly callerSignal: AbortSignal | undefined,
    private readonly idleTimeoutMs: number = DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  ) {
    callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.timer = setTimeout(() => {
      // The consumer holding a chunk is not the upstream being silent: the timer starts again.
      if (this.held) {
        this.timer.refresh();
        return;
      }
      this.idle = true;
      this.controller.abort();
    }, idleTimeoutMs);
    // An abandoned stream must not keep the process alive; the request itself does while it runs.
    this.timer.unref();
  }

  /** The signal for the SDK call. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    this.timer.refresh();
  }

  /**
   * The consumer has a chunk (true) or asks for the next one (false). Between the two, silence is the
   * consumer's, not the upstream's (a run's stream may give way to new runs' setups).
   */
  hold(held: boolean): void {
    this.held = held;
  }

  /** Throws if the request was cut by the caller or by the idle timer (the SDKs end quietly on abort). */
  throwIfCut(): void {
    if (this.callerSignal?.aborted) throw new LlmAbortError(undefined, { cause: this.callerSignal.reason });
    if (this.idle) throw new StreamIdleTimeoutError(this.provider, this.idleTimeoutMs);
  }

  failure(error: unknown): unknown {
    if (this.callerSignal?.aborted) return new LlmAbortError(undefined, { cause: error });
    if (this.idle) return new StreamIdleTimeoutError(this.provider, this.idleTimeoutMs);
    if (isAbortError(error)) return new LlmAbortError(undefined, { cause: error });
    return error;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}

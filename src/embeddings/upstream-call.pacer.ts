import { abortableSleep } from '../providers/retry-backoff';

/**
 * Spaces upstream calls: each `wait()` resolves no sooner than `intervalMs` after the previous one
 * resolved (rate limiting of `npm run ai:embed-nodes -- delay=MS`). 0 never waits.
 */
export class UpstreamCallPacer {
  private nextAt = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async wait(signal?: AbortSignal): Promise<void> {
    if (this.intervalMs <= 0) return;
    const now = this.clock();
    const delay = this.nextAt - now;
    this.nextAt = Math.max(now, this.nextAt) + this.intervalMs;
    if (delay > 0) await abortableSleep(delay, signal);
  }
}

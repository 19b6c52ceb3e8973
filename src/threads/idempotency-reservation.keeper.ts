import { Logger } from '../observability/logger';
import type { IdempotencyScope, ThreadRepository } from './thread.repository';

const logger = new Logger('threads');

/**
 * Keeps this process's in-progress Idempotency-Key reservations alive while their requests run:
 * a reservation only holds its key for `holdMs` (the run lease's time to live), renewed every third
 * of that, so one left behind by a crashed process frees the key within `holdMs` instead of
 * blocking retries until the 24 h the answer would have been kept.
 */
export class IdempotencyReservationKeeper {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly repository: ThreadRepository,
    private readonly holdMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** How many reservations this process keeps alive now. */
  get size(): number {
    return this.timers.size;
  }

  keep(scope: IdempotencyScope): void {
    const id = scopeId(scope);
    if (this.timers.has(id)) return;
    const timer = setInterval(() => void this.renew(scope), Math.max(1, Math.floor(this.holdMs / 3)));
    timer.unref(); // never keeps the process alive on its own
    this.timers.set(id, timer);
  }

  /** Stops renewing (the request completed or released its key). */
  stop(scope: IdempotencyScope): void {
    const id = scopeId(scope);
    clearInterval(this.timers.get(id));
    this.timers.delete(id);
  }

  stopAll(): void {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
  }

  /** Renews now; false when the reservation is gone. Called by the timer; exposed for tests. */
  async renew(scope: IdempotencyScope): Promise<boolean> {
    try {
      if (await this.repository.renewIdempotencyKey(scope, this.holdMs, this.clock())) return true;
      if (!this.timers.has(scopeId(scope))) return false; // completed or released meanwhile
      // Expired (this process stalled past holdMs): a retry may already run; nothing to keep.
      logger.warn('idempotency_reservation_lost', { workspace: scope.workspace });
      this.stop(scope);
    } catch (error) {
      // A store hiccup: the next tick tries again before the reservation would expire.
      logger.warn('idempotency_reservation_renew_failed', { workspace: scope.workspace, error: (error as Error).message });
    }
    return false;
  }
}

function scopeId(scope: IdempotencyScope): string {
  return JSON.stringify([scope.workspace, scope.userId, scope.key]);
}

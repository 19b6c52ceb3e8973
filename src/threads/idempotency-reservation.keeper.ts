import { Logger } from '../observability/logger';
import type { IdempotencyScope, ThreadRepository } from './thread.repository';

const logger = new Logger('threads');

interface HeldReservation {
  /** Proves the reservation is this process's (renew, complete and release need it). */
  token: string;
  /** Renews it while its request runs; null once renewing stopped (lost, or shutting down). */
  timer: NodeJS.Timeout | null;
}

/**
 * This process's in-progress Idempotency-Key reservations: their tokens, and their renewal while
 * their requests run. A reservation only holds its key for `holdMs` (the run lease's time to live),
 * renewed every third of that, so one left behind by a crashed process frees the key within `holdMs`
 * instead of blocking retries until the 24 h the answer would have been kept. The token is kept until
 * the request completes or releases its key, even once renewing stopped, because only the token's
 * holder may do either.
 */
export class IdempotencyReservationKeeper {
  private readonly held = new Map<string, HeldReservation>();

  constructor(
    private readonly repository: ThreadRepository,
    private readonly holdMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** How many reservations this process keeps alive now. */
  get size(): number {
    return [...this.held.values()].filter((reservation) => reservation.timer !== null).length;
  }

  keep(scope: IdempotencyScope, token: string): void {
    const id = scopeId(scope);
    const previous = this.held.get(id);
    if (previous?.timer) clearInterval(previous.timer);
    const timer = setInterval(() => void this.renew(scope), Math.max(1, Math.floor(this.holdMs / 3)));
    timer.unref(); // never keeps the process alive on its own
    this.held.set(id, { token, timer });
  }

  /** Stops renewing and hands back the reservation's token (the request completes or releases it); undefined when none is held. */
  take(scope: IdempotencyScope): string | undefined {
    const id = scopeId(scope);
    const reservation = this.held.get(id);
    if (!reservation) return undefined;
    if (reservation.timer) clearInterval(reservation.timer);
    this.held.delete(id);
    return reservation.token;
  }

  /** Stops every renewal (shutdown); tokens stay, so requests still finishing can complete or release their key. */
  stopAll(): void {
    for (const reservation of this.held.values()) {
      if (reservation.timer) clearInterval(reservation.timer);
      reservation.timer = null;
    }
  }

  /** Renews now; false when the reservation is gone. Called by the timer; exposed for tests. */
  async renew(scope: IdempotencyScope): Promise<boolean> {
    const reservation = this.held.get(scopeId(scope));
    if (!reservation?.timer) return false; // completed, released or stopped meanwhile
    try {
      if (await this.repository.renewIdempotencyKey(scope, reservation.token, this.holdMs, this.clock())) return true;
      if (!reservation.timer) return false;
      // Expired (this process stalled past holdMs), maybe taken over by a retry: nothing to keep alive.
      logger.warn('idempotency_reservation_lost', { workspace: scope.workspace });
      clearInterval(reservation.timer);
      reservation.timer = null;
    } catch (error) {
      // A store hiccup: the next tick tries again before the reservation would expire.
      logger.warn('idempotency_reservation_renew_failed', {
        workspace: scope.workspace,
        error: (error as Error).message,
      });
    }
    return false;
  }
}

function scopeId(scope: IdempotencyScope): string {
  return JSON.stringify([scope.workspace, scope.userId, scope.key]);
}

export interface TokenBucketRateLimiterOptions {
  /** Requests allowed per minute and per key; 0 disables the limiter. */
  limitPerMinute: number;
  /** Hard cap on tracked keys; beyond it the least recently used tenth is forgotten. */
  maxKeys?: number;
  /** Clock in epoch ms (tests pass their own). */
  now?: () => number;
}

export type RateLimitDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number };

const MINUTE_MS = 60_000;
const DEFAULT_MAX_KEYS = 100_000;
// Sweeping walks the Map from its oldest entry, which also walks the slots of recently deleted
// entries until V8 compacts the table; doing it at most this often keeps take() O(1).
const SWEEP_INTERVAL_MS = 5_000;
// Absorbs float drift when the interval is not a whole number of ms (e.g. 7 per minute).
const EPSILON_MS = 1e-6;

/**
 * Per-key token bucket: a key may spend up to `limitPerMinute` requests at once, and the bucket
 * refills continuously at `limitPerMinute` per minute.
 *
 * Kept as GCRA: one "theoretical arrival time" per key instead of a fractional token count, so no
 * rounding accumulates and a client that waits the announced retryAfterMs is let through.
 * Memory is bounded: a key whose bucket is full again is dropped (indistinguishable from an unknown key)
 * by a sweep that runs at most every few seconds, and past `maxKeys` the least recently used tenth goes first. Per process: instances behind a load
 * balancer each count on their own.
 */
export class TokenBucketRateLimiter {
  /** key → theoretical arrival time (epoch ms), ordered by last use, oldest first. */
  private readonly arrivals = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly burstToleranceMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  private nextSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: TokenBucketRateLimiterOptions) {
    const limit = options.limitPerMinute;
    if (!Number.isFinite(limit) || limit < 0) throw new Error('limitPerMinute must be a finite number >= 0');
    this.intervalMs = limit > 0 ? MINUTE_MS / limit : Number.POSITIVE_INFINITY;
    this.burstToleranceMs = limit > 0 ? MINUTE_MS - this.intervalMs : 0;
    this.maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_KEYS);
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return Number.isFinite(this.intervalMs);
  }

  /** Keys currently tracked (those with a full bucket are evicted as time passes). */
  get trackedKeys(): number {
    return this.arrivals.size;
  }

  /** Spends one request of `key` if it has one left. */
  take(key: string): RateLimitDecision {
    if (!this.enabled) return { allowed: true, remaining: Number.POSITIVE_INFINITY };
    const now = this.now();
    if (now >= this.nextSweepAt) {
      this.nextSweepAt = now + SWEEP_INTERVAL_MS;
      this.evictFull(now);
    }

    const arrival = Math.max(this.arrivals.get(key) ?? now, now);
    const wait = arrival - now - this.burstToleranceMs;
    const allowed = wait <= EPSILON_MS;
    const next = allowed ? arrival + this.intervalMs : arrival;
    // Re-inserting keeps the Map ordered by last use, so the cap forgets the least recently used key.
    this.arrivals.delete(key);
    this.arrivals.set(key, next);
    if (!allowed) return { allowed: false, retryAfterMs: Math.ceil(wait) };
    this.enforceMaxKeys();
    const remaining = Math.floor((this.burstToleranceMs - (next - now)) / this.intervalMs + EPSILON_MS) + 1;
    return { allowed: true, remaining: Math.max(0, remaining) };
  }

  private evictFull(now: number): void {
    // Oldest first; stopping at the first non-full bucket keeps this O(evicted). A full bucket left
    // behind a busier one is dropped at the latest a minute later.
    for (const [key, arrival] of this.arrivals) {
      if (arrival > now) break;
      this.arrivals.delete(key);
    }
  }

  private enforceMaxKeys(): void {
    if (this.arrivals.size <= this.maxKeys) return;
    // Dropping a tenth at once, in one walk, keeps the cost per take O(1) when keys keep coming.
    let excess = this.arrivals.size - this.maxKeys + Math.floor(this.maxKeys / 10);
    for (const key of this.arrivals.keys()) {
      if (excess-- <= 0) break;
      this.arrivals.delete(key);
    }
  }
}

import { LRUCache } from 'lru-cache';

export interface TtlLruCacheOptions {
  /** Lifetime of an entry in ms; 0 disables the cache (nothing is stored). */
  ttlMs: number;
  /** Beyond this many entries the least recently used one is evicted. */
  maxEntries: number;
  /** Injectable clock (ms) so expiry is testable without waiting. */
  clock?: () => number;
}

interface Entry<V, S> {
  value: V;
  scope: S;
}

/**
 * A bounded in-memory cache (lru-cache: least-recently-used eviction plus a time to live) whose
 * entries carry a `scope` (e.g. workspace + graph), so a group of entries can be invalidated at once.
 */
export class TtlLruCache<V, S = unknown> {
  private readonly entries: LRUCache<string, Entry<V, S>> | null;

  constructor(private readonly options: TtlLruCacheOptions) {
    const clock = options.clock ?? Date.now;
    this.entries = this.enabled
      ? new LRUCache<string, Entry<V, S>>({
          max: options.maxEntries,
          ttl: options.ttlMs,
          // Every read checks the clock itself: no 1 ms memo of it (a test's clock moves in jumps).
          ttlResolution: 0,
          // lru-cache reads a start time of 0 as "no TTL": a clock starting at 0 (tests) is shifted by 1 ms, ages unchanged.
          perf: { now: () => clock() + 1 },
        })
      : null;
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0 && this.options.maxEntries > 0;
  }

  /** Live entries (expired ones are purged first). */
  get size(): number {
    if (!this.entries) return 0;
    this.entries.purgeStale();
    return [...this.entries.keys()].filter((key) => !this.expireAtTtl(key)).length;
  }

  get(key: string): V | undefined {
    if (!this.entries) return undefined;
    const status: LRUCache.Status<string, Entry<V, S>> = {};
    const entry = this.entries.get(key, { status });
    if (entry === undefined) return undefined;
    // Gone once its age reaches the TTL: lru-cache keeps it while the age equals the TTL.
    if (status.remainingTTL !== undefined && status.remainingTTL <= 0) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, scope: S): void {
    this.entries?.set(key, { value, scope });
  }

  /** Removes every entry whose scope matches; returns how many were removed. */
  deleteWhere(predicate: (scope: S) => boolean): number {
    if (!this.entries) return 0;
    const matching = [...this.entries.entries()].filter(([, entry]) => predicate(entry.scope)).map(([key]) => key);
    for (const key of matching) this.entries.delete(key);
    return matching.length;
  }

  clear(): void {
    this.entries?.clear();
  }

  /** An entry is gone once its age reaches the TTL (lru-cache keeps it while the age equals the TTL): true when `key` just went. */
  private expireAtTtl(key: string): boolean {
    const entries = this.entries as LRUCache<string, Entry<V, S>>;
    if (!entries.has(key) || entries.getRemainingTTL(key) > 0) return false;
    entries.delete(key);
    return true;
  }
}

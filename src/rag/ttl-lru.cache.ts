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
  expiresAt: number;
}

/**
 * A bounded in-memory cache: least-recently-used eviction plus a time to live. Each entry carries
 * a `scope` (e.g. workspace + graph) so a group of entries can be invalidated at once.
 * Relies on Map keeping insertion order: re-inserting on read moves an entry to the young end.
 */
export class TtlLruCache<V, S = unknown> {
  private readonly entries = new Map<string, Entry<V, S>>();
  private readonly clock: () => number;

  constructor(private readonly options: TtlLruCacheOptions) {
    this.clock = options.clock ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0 && this.options.maxEntries > 0;
  }

  /** Live entries (expired ones are purged first). */
  get size(): number {
    this.purgeExpired();
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.clock()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, scope: S): void {
    if (!this.enabled) return;
    this.entries.delete(key);
    this.entries.set(key, { value, scope, expiresAt: this.clock() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Removes every entry whose scope matches; returns how many were removed. */
  deleteWhere(predicate: (scope: S) => boolean): number {
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (predicate(entry.scope)) {
        this.entries.delete(key);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.entries.clear();
  }

  private purgeExpired(): void {
    const now = this.clock();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

import { TtlLruCache } from './ttl-lru.cache';

function cacheWithClock(ttlMs: number, maxEntries: number) {
  const clock = { now: 1_000 };
  const cache = new TtlLruCache<string, string>({ ttlMs, maxEntries, clock: () => clock.now });
  return { cache, clock };
}

describe(TtlLruCache.name, () => {
  it('returns a stored value until its TTL has passed', () => {
    const { cache, clock } = cacheWithClock(100, 10);
    cache.set('k', 'v', 'scope');
    clock.now += 99;
    expect(cache.get('k')).toBe('v');
    clock.now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry beyond its bound', () => {
    const { cache } = cacheWithClock(1_000, 2);
    cache.set('a', '1', 's');
    cache.set('b', '2', 's');
    expect(cache.get('a')).toBe('1');
    cache.set('c', '3', 's');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('1');
    expect(cache.get('c')).toBe('3');
    expect(cache.size).toBe(2);
  });

  it('counts only live entries', () => {
    const { cache, clock } = cacheWithClock(100, 10);
    cache.set('old', '1', 's');
    clock.now += 50;
    cache.set('new', '2', 's');
    clock.now += 60;
    expect(cache.size).toBe(1);
  });

  it('deletes the entries of a scope', () => {
    const { cache } = cacheWithClock(1_000, 10);
    cache.set('a', '1', 'graph-1');
    cache.set('b', '2', 'graph-2');
    cache.set('c', '3', 'graph-1');
    expect(cache.deleteWhere((scope) => scope === 'graph-1')).toBe(2);
    expect(cache.get('b')).toBe('2');
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('stores nothing when the TTL is 0', () => {
    const { cache } = cacheWithClock(0, 10);
    cache.set('k', 'v', 's');
    expect(cache.enabled).toBe(false);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

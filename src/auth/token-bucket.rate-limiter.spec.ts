import { TokenBucketRateLimiter } from './token-bucket.rate-limiter';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe(TokenBucketRateLimiter.name, () => {
  it('allows the limit at once, then refuses with the time until the next request', () => {
    const time = clock();
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 3, now: time.now });
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 2 });
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 0 });
    // 3 per minute refills one request every 20 s.
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterMs: 20_000 });
    time.advance(5_000);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterMs: 15_000 });
  });

  it('refills at the per-minute rate, never above the limit', () => {
    const time = clock();
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 60, now: time.now });
    for (let i = 0; i < 60; i += 1) expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    time.advance(1_000);
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterMs: 1_000 });
    time.advance(10 * 60_000);
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 59 });
  });

  it('never lets more than twice the limit through in any minute', () => {
    const time = clock();
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 10, now: time.now });
    let allowed = 0;
    for (let ms = 0; ms < 60_000; ms += 100) {
      if (limiter.take('a').allowed) allowed += 1;
      time.advance(100);
    }
    expect(allowed).toBeGreaterThanOrEqual(19);
    expect(allowed).toBeLessThanOrEqual(20);
  });

  it('counts each key on its own', () => {
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 1, now: clock().now });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('is disabled by a limit of 0', () => {
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 0, now: clock().now });
    expect(limiter.enabled).toBe(false);
    for (let i = 0; i < 1_000; i += 1) expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.trackedKeys).toBe(0);
  });

  it('forgets keys idle for a minute, which changes no decision', () => {
    const time = clock();
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 2, now: time.now });
    for (let i = 0; i < 1_000; i += 1) {
      limiter.take(`user-${i}`);
      limiter.take(`user-${i}`);
    }
    expect(limiter.trackedKeys).toBe(1_000);
    time.advance(30_000);
    limiter.take('fresh');
    expect(limiter.trackedKeys).toBe(1_001);
    time.advance(30_000);
    limiter.take('fresh');
    expect(limiter.trackedKeys).toBe(1);
    expect(limiter.take('user-1')).toEqual({ allowed: true, remaining: 1 });
  });

  it('forgets a key once its bucket is full again', () => {
    const time = clock();
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 2, now: time.now });
    limiter.take('a');
    time.advance(30_000);
    limiter.take('b');
    expect(limiter.trackedKeys).toBe(1);
  });

  it('lets a client through once it has waited the announced time, whatever the limit', () => {
    for (const limit of [1, 3, 7, 13, 60, 97]) {
      const time = clock();
      const limiter = new TokenBucketRateLimiter({ limitPerMinute: limit, now: time.now });
      for (let i = 0; i < limit; i += 1) expect(limiter.take('a').allowed).toBe(true);
      for (let round = 0; round < 2 * limit; round += 1) {
        const refused = limiter.take('a');
        if (refused.allowed) throw new Error(`limit ${limit}: expected a refusal`);
        // The announced wait is exact to the millisecond (rounded up).
        time.advance(refused.retryAfterMs - 2);
        expect(limiter.take('a').allowed).toBe(false);
        time.advance(2);
        expect(limiter.take('a').allowed).toBe(true);
      }
    }
  });

  it('does not refill a key that keeps asking while refused', () => {
    const time = clock();
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 1, now: time.now });
    limiter.take('a');
    for (let i = 0; i < 59; i += 1) {
      time.advance(1_000);
      expect(limiter.take('a').allowed).toBe(false);
    }
    time.advance(1_000);
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('caps the number of tracked keys, forgetting the least recently used tenth', () => {
    const time = clock();
    const limiter = new TokenBucketRateLimiter({ limitPerMinute: 1, maxKeys: 10, now: time.now });
    for (const key of 'abcdefghij') limiter.take(key);
    limiter.take('a'); // refused, but a use: a is now the most recently used
    limiter.take('k');
    expect(limiter.trackedKeys).toBe(9);
    // a and d are still empty; b (least recently used) and c were forgotten and start over.
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('d').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
    expect(limiter.take('c').allowed).toBe(true);
  });

  it('refuses a negative or non-finite limit', () => {
    expect(() => new TokenBucketRateLimiter({ limitPerMinute: -1 })).toThrow(/limitPerMinute/);
    expect(() => new TokenBucketRateLimiter({ limitPerMinute: Number.NaN })).toThrow(/limitPerMinute/);
  });
});

import { ConcurrencyLimiter } from './concurrency.limiter';

describe(ConcurrencyLimiter.name, () => {
  it('lets at most `limit` holders in, and hands slots over in FIFO order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const order: string[] = [];
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const third = limiter.acquire().then((release) => (order.push('third'), release));
    const fourth = limiter.acquire().then((release) => (order.push('fourth'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(limiter.inUse).toBe(2);
    first();
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect(limiter.inUse).toBe(0);
  });

  it('rejects a waiter whose signal fires, and keeps the queue consistent', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    held();
    const again = await limiter.acquire();
    expect(limiter.inUse).toBe(1);
    again();
    expect(limiter.inUse).toBe(0);
  });

  it('refuses a limit below 1', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(/positive integer/);
  });
});

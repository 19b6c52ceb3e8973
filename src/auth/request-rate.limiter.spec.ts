import { loadAppConfig } from '../config/load-app-config';
import { AppError } from '../errors/app-error';
import { memoryRateLimiterBackend } from './rate-limiter.backend';
import { RequestRateLimiter } from './request-rate.limiter';

const MINUTE = 60_000;
const limiterOf = (limit: number) =>
  new RequestRateLimiter(
    loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', RATE_LIMIT_PER_MINUTE: String(limit) }),
    memoryRateLimiterBackend,
  );

describe(RequestRateLimiter.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('allows the limit at once, then refuses with the time until the next request', async () => {
    const limiter = limiterOf(3);
    for (let i = 0; i < 3; i += 1) expect(await limiter.take('a')).toEqual({ allowed: true });
    // 3 per minute: one request every 20 s.
    expect(await limiter.take('a')).toEqual({ allowed: false, retryAfterMs: 20_000 });
    jest.advanceTimersByTime(5_000);
    expect(await limiter.take('a')).toEqual({ allowed: false, retryAfterMs: 15_000 });
  });

  it('lets a client through once it has waited the announced time, whatever the limit', async () => {
    for (const limit of [1, 3, 7, 13, 60, 97]) {
      const limiter = limiterOf(limit);
      for (let i = 0; i < limit; i += 1) expect((await limiter.take('a')).allowed).toBe(true);
      for (let round = 0; round < 2 * limit; round += 1) {
        const refused = await limiter.take('a');
        if (refused.allowed) throw new Error(`limit ${limit}: expected a refusal`);
        jest.advanceTimersByTime(refused.retryAfterMs - 2);
        expect((await limiter.take('a')).allowed).toBe(false);
        jest.advanceTimersByTime(2);
        expect((await limiter.take('a')).allowed).toBe(true);
      }
    }
  });

  it('holds a client that keeps pressing to the limit per minute, plus its burst once', async () => {
    const limiter = limiterOf(10);
    const allowedPerMinute: number[] = [];
    for (let minute = 0; minute < 10; minute += 1) {
      let allowed = 0;
      for (let ms = 0; ms < MINUTE; ms += 100) {
        if ((await limiter.take('a')).allowed) allowed += 1;
        jest.advanceTimersByTime(100);
      }
      allowedPerMinute.push(allowed);
    }
    expect(allowedPerMinute[0]).toBe(19); // the burst of 10, then one every 6 s
    expect(allowedPerMinute.slice(1)).toEqual(new Array(9).fill(10));
  });

  it('counts each key on its own, and nothing at a limit of 0', async () => {
    const limiter = limiterOf(1);
    expect((await limiter.take('a')).allowed).toBe(true);
    expect((await limiter.take('a')).allowed).toBe(false);
    expect((await limiter.take('b')).allowed).toBe(true);
    const unlimited = limiterOf(0);
    for (let i = 0; i < 1_000; i += 1) expect((await unlimited.take('a')).allowed).toBe(true);
  });

  it('refuses a principal with AppError rate_limit, the limit and the wait in its message', async () => {
    const limiter = limiterOf(2);
    const alice = { userId: 'alice', workspace: 'acme', role: 'editor' as const };
    await limiter.consume(alice);
    await limiter.consume(alice);
    const refusal = await limiter.consume(alice).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      code: 'rate_limit',
      message: 'Too many requests: the limit is 2 per minute; retry in 30 s',
      details: { retryAfterMs: 30_000 },
    });
    await limiter.consume({ ...alice, workspace: 'beta' });
  });
});

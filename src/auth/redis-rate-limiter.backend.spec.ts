import { TestRedisServer } from '../../test/support/test-redis.server';
import { waitUntil } from '../../test/support/wait-until';
import { loadAppConfig } from '../config/load-app-config';
import { resetLogSink, setLogSink } from '../observability/logger';
import { RedisConnection } from '../redis/redis-connection';
import { redisRateLimiterBackend, wholeSecondWindow } from './redis-rate-limiter.backend';
import { RequestRateLimiter } from './request-rate.limiter';

describe(`${redisRateLimiterBackend.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const connections: RedisConnection[] = [];

  /** One "instance": its own connection and RequestRateLimiter, counting in the shared Redis. */
  const instance = async (limit: number) => {
    const connection = new RedisConnection(redis.url);
    connections.push(connection);
    await connection.ready(5_000);
    const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', RATE_LIMIT_PER_MINUTE: String(limit) });
    return new RequestRateLimiter(config, redisRateLimiterBackend(connection.commands));
  };

  beforeAll(async () => {
    setLogSink(() => undefined);
    redis = await TestRedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    resetLogSink();
    await redis.stop();
  });

  it('holds one budget per key across instances, atomically under concurrent requests', async () => {
    const instances = await Promise.all([instance(5), instance(5), instance(5)]);
    const decisions = await Promise.all(
      Array.from({ length: 12 }, (_, index) => instances[index % 3].take('["default","ada"]')),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    const refused = decisions.find((decision) => !decision.allowed) as { retryAfterMs: number };
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(12_000);
    // Another principal has its own budget; the counters are Redis keys of the service.
    expect((await instances[1].take('["default","bob"]')).allowed).toBe(true);
    expect(redis.cli('--scan', '--pattern', 'graph-ai:rate:*').split('\n').length).toBeGreaterThanOrEqual(2);
  });

  it('counts on each instance alone while Redis is down, and in Redis again once it is back', async () => {
    const [a, b] = await Promise.all([instance(2), instance(2)]);
    await redis.kill();
    try {
      // Each instance lets the limit through on its own (the insurance limiter, in memory).
      for (const limiter of [a, b]) {
        expect((await limiter.take('["default","cleo"]')).allowed).toBe(true);
        expect((await limiter.take('["default","cleo"]')).allowed).toBe(true);
        expect((await limiter.take('["default","cleo"]')).allowed).toBe(false);
      }
    } finally {
      await redis.restart();
    }
    await waitUntil(() => connections.every((connection) => connection.isUp), 10_000);
    expect((await a.take('["default","dora"]')).allowed).toBe(true);
    expect((await b.take('["default","dora"]')).allowed).toBe(true);
    expect((await a.take('["default","dora"]')).allowed).toBe(false);
  });

  it('makes every window a whole number of seconds without letting more than the limit through', () => {
    expect(wholeSecondWindow({ keyPrefix: 'k', points: 1, duration: 1 })).toEqual({ points: 1, duration: 1 });
    expect(wholeSecondWindow({ keyPrefix: 'k', points: 1, duration: 60 / 7 })).toEqual({ points: 1, duration: 9 });
    expect(wholeSecondWindow({ keyPrefix: 'k', points: 59, duration: 3_540 })).toEqual({ points: 59, duration: 3_540 });
    expect(wholeSecondWindow({ keyPrefix: 'k', points: 1, duration: 0.5 })).toEqual({ points: 2, duration: 1 });
    expect(wholeSecondWindow({ keyPrefix: 'k', points: 1, duration: 0.4 })).toEqual({ points: 2, duration: 1 });
  });
});

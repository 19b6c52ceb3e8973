import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { QuietRedis } from '../redis/redis-client';
import { RateLimiterBackend, WindowLimiterOptions } from './rate-limiter.backend';

/**
 * With REDIS_URL, the rate-limit counters of every instance are the same:
 * rate-limiter-flexible's RateLimiterRedis, which counts each window with one atomic Lua script (SET NX EX,
 * INCRBY, PTTL), on the instance's command connection. While Redis is down (the connection not ready, or a
 * command failing) its insurance limiter counts in this instance's memory instead: each instance then
 * allows the limit on its own, as without Redis, and the shared counting resumes by itself.
 */
export function redisRateLimiterBackend(redis: QuietRedis): RateLimiterBackend {
  return (options) =>
    new RateLimiterRedis({
      storeClient: redis,
      ...wholeSecondWindow(options),
      keyPrefix: `graph-ai:${options.keyPrefix}`,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(options),
    });
}

/**
 * RateLimiterRedis expires a window after a whole number of seconds (a shorter one never expires): a window
 * of at least 1 s is rounded up (RATE_LIMIT_PER_MINUTE ≤ 60: one request every 60/limit s); a shorter one
 * becomes 1 s holding the whole requests that fit in it (above 60 per minute), so the rate never exceeds
 * the limit.
 */
export function wholeSecondWindow({
  points,
  duration,
}: WindowLimiterOptions): Pick<WindowLimiterOptions, 'points' | 'duration'> {
  if (duration >= 1) return { points, duration: Math.ceil(duration) };
  return { points: Math.max(1, Math.floor(points / duration)), duration: 1 };
}

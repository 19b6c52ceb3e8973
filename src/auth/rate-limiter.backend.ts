import { InjectionToken } from '@nestjs/common';
import { RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';

/** One fixed-window limiter: `points` requests per key every `duration` seconds, counters under `keyPrefix`. */
export interface WindowLimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
}

/**
 * Where rate-limit counters live: builds the rate-limiter-flexible limiters RequestRateLimiter
 * combines. Memory (the default) counts per instance; with REDIS_URL, AuthModule binds the backend
 * shared by the instances (redis-rate-limiter.backend.ts) to RATE_LIMITER_BACKEND instead.
 */
export type RateLimiterBackend = (options: WindowLimiterOptions) => RateLimiterAbstract;

export const RATE_LIMITER_BACKEND: InjectionToken<RateLimiterBackend> = Symbol('RATE_LIMITER_BACKEND');

export const memoryRateLimiterBackend: RateLimiterBackend = (options) => new RateLimiterMemory(options);

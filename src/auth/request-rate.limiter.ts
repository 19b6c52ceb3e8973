import { Inject, Injectable } from '@nestjs/common';
import { BurstyRateLimiter, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { Principal } from './principal';
import { RATE_LIMITER_BACKEND, RateLimiterBackend } from './rate-limiter.backend';

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * RATE_LIMIT_PER_MINUTE per principal, shared by HTTP (@RateLimited routes) and the
 * Socket.IO gateway, so a principal has one budget across both transports. rate-limiter-flexible's
 * BurstyRateLimiter over two fixed windows: one request every 60/limit s (the rate), and when that
 * one is spent, a burst of limit − 1 more that comes back every `limit` minutes. So the limit passes
 * at once, then the limit per minute, plus at most limit − 1 once per `limit` minutes under
 * constant pressure. Counters live in the RATE_LIMITER_BACKEND: per instance in
 * memory, shared once it is Redis.
 */
@Injectable()
export class RequestRateLimiter {
  private readonly limiter: BurstyRateLimiter | null;
  readonly limitPerMinute: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(RATE_LIMITER_BACKEND) backend: RateLimiterBackend) {
    this.limitPerMinute = config.limits.rateLimitPerMinute;
    const limit = this.limitPerMinute;
    this.limiter =
      limit > 0
        ? new BurstyRateLimiter(
            backend({ keyPrefix: 'rate:steady', points: 1, duration: 60 / limit }),
            backend({ keyPrefix: 'rate:burst', points: limit - 1, duration: 60 * limit }),
          )
        : null;
  }

  /** Spends one request of the principal; rejects with AppError('rate_limit', …, { retryAfterMs }) when none is left. */
  async consume(principal: Principal): Promise<void> {
    const decision = await this.take(RequestRateLimiter.keyFor(principal));
    if (!decision.allowed) throw this.rateLimitError(decision.retryAfterMs);
  }

  /** Spends one request of an arbitrary key (e.g. a client address on a public route). Waiting retryAfterMs is enough to pass. */
  async take(key: string): Promise<RateLimitDecision> {
    if (!this.limiter) return { allowed: true };
    try {
      await this.limiter.consume(key);
      return { allowed: true };
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return { allowed: false, retryAfterMs: Math.max(1, Math.ceil(refusal.msBeforeNext)) };
    }
  }

  rateLimitError(retryAfterMs: number): AppError {
    const seconds = RequestRateLimiter.retryAfterSeconds(retryAfterMs);
    return new AppError(
      'rate_limit',
      `Too many requests: the limit is ${this.limitPerMinute} per minute; retry in ${seconds} s`,
      { retryAfterMs },
    );
  }

  /** The `Retry-After` header value: whole seconds, at least 1. */
  static retryAfterSeconds(retryAfterMs: number): number {
    return Math.max(1, Math.ceil(retryAfterMs / 1000));
  }

  /** One budget per (workspace, userId); JSON keeps "a:b"+"c" apart from "a"+"b:c". */
  static keyFor(principal: Principal): string {
    return JSON.stringify([principal.workspace, principal.userId]);
  }
}

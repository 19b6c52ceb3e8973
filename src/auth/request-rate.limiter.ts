import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { Principal } from './principal';
import { RateLimitDecision, TokenBucketRateLimiter } from './token-bucket.rate-limiter';

/**
 * RATE_LIMIT_PER_MINUTE per principal (docs/protocol.md §6), shared by HTTP (@RateLimited routes) and the
 * Socket.IO gateway, so a principal has one budget across both transports. Per instance: a limiter
 * shared between instances would live in Redis.
 */
@Injectable()
export class RequestRateLimiter {
  private readonly limiter: TokenBucketRateLimiter;
  readonly limitPerMinute: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.limitPerMinute = config.limits.rateLimitPerMinute;
    this.limiter = new TokenBucketRateLimiter({ limitPerMinute: this.limitPerMinute });
  }

  /** Spends one request of the principal; throws AppError('rate_limit', …, { retryAfterMs }) when none is left. */
  consume(principal: Principal): void {
    const decision = this.take(RequestRateLimiter.keyFor(principal));
    if (!decision.allowed) throw this.rateLimitError(decision.retryAfterMs);
  }

  /** Spends one request of an arbitrary key (e.g. a client address on a public route). */
  take(key: string): RateLimitDecision {
    return this.limiter.take(key);
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

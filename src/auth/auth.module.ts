import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { Logger } from '../observability/logger';
import { RedisConnection } from '../redis/redis-connection';
import { REDIS_CONNECTION } from '../redis/redis-connection.token';
import { ANONYMOUS_PRINCIPAL } from './anonymous-principal';
import { HttpAuthGuard } from './http-auth.guard';
import { JwtTokenVerifier } from './jwt-token.verifier';
import { JwtStrategy } from './jwt.strategy';
import { RateLimitGuard } from './rate-limit.guard';
import { memoryRateLimiterBackend, RATE_LIMITER_BACKEND, RateLimiterBackend } from './rate-limiter.backend';
import { redisRateLimiterBackend } from './redis-rate-limiter.backend';
import { RequestRateLimiter } from './request-rate.limiter';
import { SocketAuthenticator } from './socket.authenticator';

const logger = new Logger('auth');

/**
 * Authentication and per-principal rate limiting. Registers two global guards, in this order:
 * HttpAuthGuard (principal, @Public, @RequireRole), then RateLimitGuard (@RateLimited).
 * Exports what the Socket.IO gateway needs: SocketAuthenticator and RequestRateLimiter.
 */
@Module({
  providers: [
    {
      provide: JwtTokenVerifier,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new JwtTokenVerifier({
          secret: config.auth.secret,
          publicKey: config.auth.publicKey,
          issuer: config.auth.issuer,
          audience: config.auth.audience,
        }),
    },
    JwtStrategy,
    SocketAuthenticator,
    // Per instance in memory; with REDIS_URL (RedisModule), shared by the instances in Redis.
    {
      provide: RATE_LIMITER_BACKEND,
      inject: [{ token: REDIS_CONNECTION, optional: true }],
      useFactory: (redis: RedisConnection | null): RateLimiterBackend =>
        redis ? redisRateLimiterBackend(redis.commands) : memoryRateLimiterBackend,
    },
    RequestRateLimiter,
    { provide: APP_GUARD, useClass: HttpAuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  exports: [JwtTokenVerifier, SocketAuthenticator, RequestRateLimiter],
})
export class AuthModule implements OnModuleInit {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onModuleInit(): void {
    if (this.config.auth.mode !== 'none') return;
    logger.warn('auth_disabled', {
      reason: 'AUTH_MODE=none: every caller is the anonymous admin; development only',
      ...ANONYMOUS_PRINCIPAL,
    });
  }
}

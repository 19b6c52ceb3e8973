import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { PRINCIPAL_REQUEST_KEY } from './current-principal.decorator';
import { Principal } from './principal';
import { RATE_LIMITED_KEY } from './rate-limited.decorator';
import { RequestRateLimiter } from './request-rate.limiter';

/**
 * Global guard registered after HttpAuthGuard, so the principal is known: applies the per-principal
 * budget to @RateLimited() routes. A public route falls back to the client address.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RequestRateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const limited = this.reflector.getAllAndOverride<boolean | undefined>(RATE_LIMITED_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!limited) return true;

    const http = context.switchToHttp();
    const request = http.getRequest<Request & { [PRINCIPAL_REQUEST_KEY]?: Principal }>();
    const principal = request[PRINCIPAL_REQUEST_KEY];
    const key = principal ? RequestRateLimiter.keyFor(principal) : `ip:${request.ip ?? 'unknown'}`;
    const decision = await this.limiter.take(key);
    if (decision.allowed) return true;
    const retryAfter = RequestRateLimiter.retryAfterSeconds(decision.retryAfterMs);
    http.getResponse<Response>().setHeader('Retry-After', String(retryAfter));
    throw this.limiter.rateLimitError(decision.retryAfterMs);
  }
}

import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

export const RATE_LIMITED_KEY = 'rateLimited';

/**
 * Counts each call of the route against the principal's RATE_LIMIT_PER_MINUTE budget (chat, resume).
 * Over the budget: 429 `rate_limit`, `retryable: true`, a `Retry-After` header in seconds.
 */
export const RateLimited = () =>
  applyDecorators(
    SetMetadata(RATE_LIMITED_KEY, true),
    ApiResponse({
      status: 429,
      description: 'Over RATE_LIMIT_PER_MINUTE for this principal; see the Retry-After header (seconds).',
      schema: {
        example: {
          statusCode: 429,
          code: 'rate_limit',
          message: 'Too many requests: the limit is 60 per minute; retry in 1 s',
          details: { retryAfterMs: 1000 },
          retryable: true,
        },
      },
    }),
  );

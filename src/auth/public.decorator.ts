import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'isPublic';

/** Routes reachable without a token: /health, /metrics. Everything else requires authentication. */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);

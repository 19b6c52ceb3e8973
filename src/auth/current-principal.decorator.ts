import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { Principal } from './principal';

/** Request property where the HTTP auth guard stores the authenticated principal. */
export const PRINCIPAL_REQUEST_KEY = 'principal';

/** Injects the authenticated Principal into a controller method. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const request = context.switchToHttp().getRequest<Request & { [PRINCIPAL_REQUEST_KEY]?: Principal }>();
  const principal = request[PRINCIPAL_REQUEST_KEY];
  if (!principal) throw new Error('CurrentPrincipal used on a route the auth guard did not authenticate');
  return principal;
});

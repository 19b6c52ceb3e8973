import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { ANONYMOUS_PRINCIPAL } from './anonymous-principal';
import { PRINCIPAL_REQUEST_KEY } from './current-principal.decorator';
import { bearerTokenOf, requireBearerToken } from './bearer-token';
import { JwtTokenVerifier } from './jwt-token.verifier';
import { Principal } from './principal';

/** Header naming the workspace the sync server writes to (its token carries none). */
export const SYNC_WORKSPACE_HEADER = 'x-workspace';

/** The principal of a request authenticated with SYNC_TOKEN. */
export const SYNC_SERVER_USER_ID = 'sync-server';

// eslint-disable-next-line no-control-regex -- control characters are what this pattern refuses
const WORKSPACE_PATTERN = /^[^\u0000-\u001f\u007f]{1,200}$/;

type AuthenticatedRequest = Request & { [PRINCIPAL_REQUEST_KEY]?: Principal };

/**
 * The guard of the sync server's routes (the change feed). Such a route is marked @Public() so the
 * global HttpAuthGuard lets it through, and uses this guard instead, which accepts:
 *  - `Authorization: Bearer <SYNC_TOKEN>` (compared in constant time) with a required `X-Workspace`
 *    header: the principal is `{ userId: "sync-server", workspace: <header>, role: "admin" }`;
 *  - otherwise an admin JWT, verified exactly like every other route (401 for a missing or invalid
 *    token, a wrong sync token included; 403 for another role).
 * With AUTH_MODE=none a caller without the sync token is the anonymous admin, as everywhere.
 */
@Injectable()
export class SyncTokenGuard implements CanActivate {
  private readonly syncTokenDigest: Buffer | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly verifier: JwtTokenVerifier,
  ) {
    this.syncTokenDigest = config.auth.syncToken ? digest(config.auth.syncToken) : null;
  }

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    try {
      request[PRINCIPAL_REQUEST_KEY] = this.principalFor(request, bearerTokenOf(request.headers.authorization));
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthorized')
        http.getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer');
      throw error;
    }
    return true;
  }

  private principalFor(request: Request, token: string | null | undefined): Principal {
    if (token && this.isSyncToken(token)) {
      const workspace = request.headers[SYNC_WORKSPACE_HEADER];
      if (typeof workspace !== 'string' || !WORKSPACE_PATTERN.test(workspace)) {
        throw AppError.badRequest('The sync token needs an X-Workspace header naming the workspace');
      }
      return { userId: SYNC_SERVER_USER_ID, workspace, role: 'admin' };
    }
    if (this.config.auth.mode === 'none') return ANONYMOUS_PRINCIPAL;
    const principal = this.verifier.verify(requireBearerToken(request.headers.authorization));
    if (principal.role !== 'admin') throw AppError.forbidden('This action requires the role admin or the sync token');
    return principal;
  }

  private isSyncToken(token: string): boolean {
    // Digests have equal lengths, so the comparison time says nothing about the token.
    return this.syncTokenDigest !== null && timingSafeEqual(digest(token), this.syncTokenDigest);
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import passport from 'passport';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { ANONYMOUS_PRINCIPAL } from './anonymous-principal';
import { PRINCIPAL_REQUEST_KEY } from './current-principal.decorator';
import { JwtTokenVerifier } from './jwt-token.verifier';
import { requireBearerToken } from './bearer-token';
import { JwtStrategy } from './jwt.strategy';
import { Principal, Role } from './principal';
import { IS_PUBLIC_KEY } from './public.decorator';
import { REQUIRED_ROLES_KEY } from './require-role.decorator';

type AuthenticatedRequest = Request & { [PRINCIPAL_REQUEST_KEY]?: Principal };

/**
 * The global HTTP guard (APP_GUARD): every route not marked @Public() needs a valid bearer JWT
 * (or gets the anonymous admin with AUTH_MODE=none); the principal is stored on the request for
 * @CurrentPrincipal(); then @RequireRole() is enforced. Socket.IO is authenticated by SocketAuthenticator.
 */
@Injectable()
export class HttpAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly strategy: JwtStrategy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets)) return true;

    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const principal =
      this.config.auth.mode === 'none'
        ? ANONYMOUS_PRINCIPAL
        : await this.authenticate(request, http.getResponse<Response>());
    request[PRINCIPAL_REQUEST_KEY] = principal;

    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(REQUIRED_ROLES_KEY, targets);
    if (roles?.length && !roles.includes(principal.role)) {
      throw AppError.forbidden(`This action requires the role ${roles.join(' or ')}`);
    }
    return true;
  }

  private async authenticate(request: Request, response: Response): Promise<Principal> {
    try {
      requireBearerToken(request.headers.authorization);
      return await this.runStrategy(request, response);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'unauthorized') throw error;
      response.setHeader('WWW-Authenticate', 'Bearer');
      throw error;
    }
  }

  /**
   * Runs this app's strategy rather than the name "jwt" in passport's process-wide registry, so two apps
   * in one process (tests) never verify with each other's keys. Passport attaches per-request callbacks
   * to the object it is given, hence a fresh object per request with the strategy as prototype.
   */
  private runStrategy(request: Request, response: Response): Promise<Principal> {
    return new Promise((resolve, reject) => {
      const authenticate = passport.authenticate(
        Object.create(this.strategy) as JwtStrategy,
        { session: false },
        (error: unknown, principal: Principal | false, info: unknown) => {
          if (error) reject(error);
          else if (principal) resolve(principal);
          else reject(JwtTokenVerifier.toUnauthorized(info));
        },
      ) as (req: Request, res: Response, next: (error?: unknown) => void) => void;
      authenticate(request, response, (error) => reject(error ?? new AppError('unauthorized', 'Invalid token')));
    });
  }
}

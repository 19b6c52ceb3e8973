import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { ExtendedError } from 'socket.io';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { Logger } from '../observability/logger';
import { ANONYMOUS_PRINCIPAL } from './anonymous-principal';
import { bearerTokenOf } from './bearer-token';
import { JwtTokenVerifier } from './jwt-token.verifier';
import { Principal } from './principal';
import { socketOriginProblem } from './socket-origin.checker';

/** What the middleware leaves in `socket.data`. */
export interface AuthenticatedSocketData {
  principal?: Principal;
  /** Epoch ms after which the handshake token no longer vouches for the principal. */
  principalExpiresAt?: number;
}

/** The part of a Socket.IO socket the authenticator reads and writes. */
export interface AuthenticatableSocket {
  handshake: { auth: Record<string, unknown>; headers: IncomingHttpHeaders };
  data: AuthenticatedSocketData;
}

export type SocketMiddleware = (socket: AuthenticatableSocket, next: (error?: ExtendedError) => void) => void;

const logger = new Logger('auth');

/**
 * Socket.IO authentication. The handshake is checked by a namespace middleware,
 * so a socket without a valid token never connects (`connect_error` "unauthorized"); a `token` field on
 * a message overrides the handshake principal for that message.
 */
@Injectable()
export class SocketAuthenticator {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly verifier: JwtTokenVerifier,
  ) {}

  /**
   * Namespace middleware: `server.use(authenticator.middleware())` in the gateway's afterInit. First the
   * page's origin (socketOriginProblem, in every AUTH_MODE): a foreign one gets connect_error "forbidden".
   * Then the token: `handshake.auth.token`, else an `Authorization: Bearer` handshake header. On failure
   * the client's connect_error has message "unauthorized" and `data: { code, message }` with the reason.
   */
  middleware(): SocketMiddleware {
    return (socket, next) => {
      const { origin, host } = socket.handshake.headers;
      const originProblem = socketOriginProblem(origin, host, this.config.server.socketCorsOrigins);
      if (originProblem) {
        logger.warn('socket_origin_refused', { origin: origin?.slice(0, 200) });
        next(Object.assign(new Error('forbidden'), { data: { code: 'forbidden', message: originProblem } }));
        return;
      }
      try {
        this.authenticateHandshake(socket);
      } catch (error) {
        const reason = error instanceof AppError ? error.message : 'Invalid token';
        logger.info('socket_auth_refused', { reason });
        next(Object.assign(new Error('unauthorized'), { data: { code: 'unauthorized', message: reason } }));
        return;
      }
      next();
    };
  }

  /** Verifies the handshake token and stores the principal (and its expiry) in `socket.data`. */
  authenticateHandshake(socket: AuthenticatableSocket): Principal {
    if (this.config.auth.mode === 'none') {
      socket.data.principal = ANONYMOUS_PRINCIPAL;
      return ANONYMOUS_PRINCIPAL;
    }
    const token = SocketAuthenticator.handshakeToken(socket.handshake);
    if (token === undefined) throw new AppError('unauthorized', 'Missing token');
    const { principal, expiresAt } = this.verifier.authenticate(token);
    socket.data.principal = principal;
    socket.data.principalExpiresAt = expiresAt;
    return principal;
  }

  /**
   * The principal a message acts as: its own `token` when it carries one (verified; invalid →
   * AppError unauthorized), else the handshake principal while the handshake token is unexpired.
   * AUTH_MODE=none: always the anonymous admin.
   */
  principalForMessage(socket: AuthenticatableSocket, token?: string): Principal {
    if (this.config.auth.mode === 'none') return ANONYMOUS_PRINCIPAL;
    if (token !== undefined && token !== null) return this.verifier.verify(token);
    const { principal, principalExpiresAt } = socket.data;
    if (!principal) throw new AppError('unauthorized', 'Socket is not authenticated');
    // A socket can outlive its handshake token; from then on each message must bring a fresh one.
    if (principalExpiresAt !== undefined && Date.now() >= principalExpiresAt) {
      throw new AppError('unauthorized', 'Token expired');
    }
    return principal;
  }

  /** `auth: { token }` first, then an `Authorization: Bearer` header; "" when present but empty or not a string. */
  static handshakeToken(handshake: AuthenticatableSocket['handshake']): string | undefined {
    const fromAuth = handshake.auth?.token;
    if (fromAuth !== undefined && fromAuth !== null) return typeof fromAuth === 'string' ? fromAuth : '';
    const token = bearerTokenOf(handshake.headers?.authorization);
    // A malformed Bearer header is a token that fails verification, never a missing one.
    return token === null ? '' : token;
  }
}

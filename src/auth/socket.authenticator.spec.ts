import jwt from 'jsonwebtoken';
import { loadAppConfig } from '../config/load-app-config';
import { AppError } from '../errors/app-error';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { JwtTokenVerifier } from './jwt-token.verifier';
import { AuthenticatableSocket, SocketAuthenticator } from './socket.authenticator';

const SECRET = 'socket-secret-of-at-least-32-ch!';

function authenticator(mode: 'jwt' | 'none'): SocketAuthenticator {
  const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: mode, JWT_SECRET: SECRET });
  return new SocketAuthenticator(config, new JwtTokenVerifier({ secret: SECRET }));
}

function socket(auth: Record<string, unknown> = {}, headers: Record<string, string> = {}): AuthenticatableSocket {
  return { handshake: { auth, headers }, data: {} };
}

function sign(claims: object, options: jwt.SignOptions = {}): string {
  return jwt.sign(claims, SECRET, { expiresIn: 600, ...options });
}

/** Runs the middleware and returns what it passed to next(). */
function runMiddleware(
  auth: SocketAuthenticator,
  target: AuthenticatableSocket,
): (Error & { data?: unknown }) | undefined {
  let outcome: { error?: Error & { data?: unknown } } | undefined;
  auth.middleware()(target, (error) => {
    outcome = { error };
  });
  if (!outcome) throw new Error('middleware did not call next');
  return outcome.error;
}

function thrown(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe(SocketAuthenticator.name, () => {
  let logs: LogEntry[];
  beforeEach(() => {
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => {
    jest.useRealTimers();
    resetLogSink();
  });

  describe('handshake middleware', () => {
    const auth = authenticator('jwt');

    it('accepts auth.token and stores the principal in socket.data', () => {
      const target = socket({ token: sign({ sub: 'u1', workspace: 'acme', role: 'editor' }) });
      expect(runMiddleware(auth, target)).toBeUndefined();
      expect(target.data.principal).toEqual({ userId: 'u1', workspace: 'acme', role: 'editor' });
      expect(target.data.principalExpiresAt).toBeGreaterThan(Date.now());
    });

    it('accepts an Authorization: Bearer handshake header', () => {
      const target = socket({}, { authorization: `Bearer ${sign({ sub: 'u2', workspace: 'acme' })}` });
      expect(runMiddleware(auth, target)).toBeUndefined();
      expect(target.data.principal).toEqual({ userId: 'u2', workspace: 'acme', role: 'viewer' });
    });

    it('prefers auth.token over the header', () => {
      const target = socket(
        { token: sign({ sub: 'from-auth', workspace: 'w' }) },
        { authorization: `Bearer ${sign({ sub: 'from-header', workspace: 'w' })}` },
      );
      runMiddleware(auth, target);
      expect(target.data.principal?.userId).toBe('from-auth');
    });

    it.each([
      ['no token', socket(), 'Missing token'],
      ['a non-Bearer header', socket({}, { authorization: 'Basic dXNlcjpwYXNz' }), 'Missing token'],
      ['an empty token', socket({ token: '' }), 'Invalid token'],
      ['a non-string token', socket({ token: 42 }), 'Invalid token'],
      [
        'a forged token',
        socket({ token: jwt.sign({ sub: 'u', workspace: 'w' }, 'other-secret-of-32-characters!!!') }),
        'Invalid token',
      ],
      ['an expired token', socket({ token: sign({ sub: 'u', workspace: 'w' }, { expiresIn: -10 }) }), 'Token expired'],
      ['a token without workspace', socket({ token: sign({ sub: 'u' }) }), 'Token lacks the sub or workspace claim'],
    ])('refuses %s with next(Error("unauthorized"))', (_name, target, reason) => {
      const error = runMiddleware(auth, target);
      expect(error).toBeInstanceOf(Error);
      expect(error?.message).toBe('unauthorized');
      expect(error?.data).toEqual({ code: 'unauthorized', message: reason });
      expect(target.data.principal).toBeUndefined();
      expect(logs).toEqual([expect.objectContaining({ event: 'socket_auth_refused', reason })]);
      const token = target.handshake.auth.token;
      if (typeof token === 'string' && token) expect(JSON.stringify(logs)).not.toContain(token);
    });
  });

  describe('principalForMessage', () => {
    const auth = authenticator('jwt');

    function connected(claims: object, options?: jwt.SignOptions): AuthenticatableSocket {
      const target = socket({ token: sign(claims, options) });
      expect(runMiddleware(auth, target)).toBeUndefined();
      return target;
    }

    it('is the handshake principal when the message has no token', () => {
      const target = connected({ sub: 'u1', workspace: 'acme', role: 'viewer' });
      expect(auth.principalForMessage(target)).toEqual({ userId: 'u1', workspace: 'acme', role: 'viewer' });
    });

    it('is the per-message token principal when one is given, for that message only', () => {
      const target = connected({ sub: 'u1', workspace: 'acme', role: 'viewer' });
      const override = sign({ sub: 'u9', workspace: 'other', role: 'admin' });
      expect(auth.principalForMessage(target, override)).toEqual({ userId: 'u9', workspace: 'other', role: 'admin' });
      expect(auth.principalForMessage(target)).toEqual({ userId: 'u1', workspace: 'acme', role: 'viewer' });
    });

    it('refuses an invalid per-message token even on an authenticated socket', () => {
      const target = connected({ sub: 'u1', workspace: 'acme' });
      const expired = sign({ sub: 'u1', workspace: 'acme' }, { expiresIn: -1 });
      expect(thrown(() => auth.principalForMessage(target, expired))).toMatchObject({
        code: 'unauthorized',
        message: 'Token expired',
      });
      expect(thrown(() => auth.principalForMessage(target, 'garbage')).code).toBe('unauthorized');
    });

    it('refuses a socket that never went through the middleware', () => {
      expect(thrown(() => auth.principalForMessage(socket())).code).toBe('unauthorized');
    });

    it('stops trusting the handshake principal once its token has expired', () => {
      jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
      const target = connected({ sub: 'u1', workspace: 'acme' }, { expiresIn: 60 });
      jest.setSystemTime(new Date('2030-01-01T00:00:59Z'));
      expect(auth.principalForMessage(target).userId).toBe('u1');
      jest.setSystemTime(new Date('2030-01-01T00:01:00Z'));
      expect(thrown(() => auth.principalForMessage(target))).toMatchObject({
        code: 'unauthorized',
        message: 'Token expired',
      });
      // A fresh per-message token still works on that socket.
      expect(auth.principalForMessage(target, sign({ sub: 'u1', workspace: 'acme' })).userId).toBe('u1');
    });
  });

  describe('AUTH_MODE=none', () => {
    const auth = authenticator('none');
    const anonymous = { userId: 'anonymous', workspace: 'default', role: 'admin' };

    it('connects any socket as the anonymous admin', () => {
      const target = socket();
      expect(runMiddleware(auth, target)).toBeUndefined();
      expect(target.data.principal).toEqual(anonymous);
    });

    it('answers the anonymous admin for every message, whatever token it carries', () => {
      const target = socket();
      runMiddleware(auth, target);
      expect(auth.principalForMessage(target)).toEqual(anonymous);
      expect(auth.principalForMessage(target, 'not-even-a-jwt')).toEqual(anonymous);
    });
  });
});

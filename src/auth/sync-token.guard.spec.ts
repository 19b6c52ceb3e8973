import { ExecutionContext } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { loadAppConfig } from '../config/load-app-config';
import { AppError } from '../errors/app-error';
import { ANONYMOUS_PRINCIPAL } from './anonymous-principal';
import { PRINCIPAL_REQUEST_KEY } from './current-principal.decorator';
import { JwtTokenVerifier } from './jwt-token.verifier';
import { Principal } from './principal';
import { SyncTokenGuard } from './sync-token.guard';

const SECRET = 'sync-guard-secret-of-at-least-32-chars';
const SYNC_TOKEN = 'sync-token-0123456789abcdef';

interface FakeRequest {
  headers: Record<string, string>;
  [PRINCIPAL_REQUEST_KEY]?: Principal;
}

function call(
  guard: SyncTokenGuard,
  headers: Record<string, string>,
): { request: FakeRequest; responseHeaders: Record<string, string>; error?: AppError } {
  const request: FakeRequest = { headers };
  const responseHeaders: Record<string, string> = {};
  const context = {
    switchToHttp: () => ({
      getRequest: () => request,
      getResponse: () => ({ setHeader: (name: string, value: string) => (responseHeaders[name] = value) }),
    }),
  } as unknown as ExecutionContext;
  try {
    guard.canActivate(context);
    return { request, responseHeaders };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { request, responseHeaders, error };
  }
}

function guardWith(env: Record<string, string>): SyncTokenGuard {
  const config = loadAppConfig({ NODE_ENV: 'test', LOG_LEVEL: 'error', ...env });
  return new SyncTokenGuard(config, new JwtTokenVerifier({ secret: config.auth.secret }));
}

const token = (claims: object) => `Bearer ${jwt.sign(claims, SECRET, { expiresIn: 60 })}`;

describe(SyncTokenGuard.name, () => {
  const guard = guardWith({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET, SYNC_TOKEN });

  it('accepts the sync token with X-Workspace as an admin of that workspace', () => {
    const { request, error } = call(guard, { authorization: `Bearer ${SYNC_TOKEN}`, 'x-workspace': 'acme' });
    expect(error).toBeUndefined();
    expect(request[PRINCIPAL_REQUEST_KEY]).toEqual({ userId: 'sync-server', workspace: 'acme', role: 'admin' });
  });

  it('refuses the sync token without a usable X-Workspace (400)', () => {
    expect(call(guard, { authorization: `Bearer ${SYNC_TOKEN}` }).error).toMatchObject({ code: 'bad_request' });
    expect(call(guard, { authorization: `Bearer ${SYNC_TOKEN}`, 'x-workspace': 'a\u0001b' }).error).toMatchObject({
      code: 'bad_request',
    });
  });

  it('answers 401 with WWW-Authenticate to a wrong sync token or no token', () => {
    const wrong = call(guard, { authorization: `Bearer ${SYNC_TOKEN}x`, 'x-workspace': 'acme' });
    expect(wrong.error).toMatchObject({ code: 'unauthorized', message: 'Invalid token' });
    expect(wrong.responseHeaders['WWW-Authenticate']).toBe('Bearer');
    expect(call(guard, {}).error).toMatchObject({ code: 'unauthorized', message: 'Missing bearer token' });
  });

  it('accepts an admin JWT (its own workspace, X-Workspace ignored) and refuses other roles with 403', () => {
    const admin = call(guard, {
      authorization: token({ sub: 'boss', workspace: 'acme', role: 'admin' }),
      'x-workspace': 'globex',
    });
    expect(admin.request[PRINCIPAL_REQUEST_KEY]).toEqual({ userId: 'boss', workspace: 'acme', role: 'admin' });
    expect(call(guard, { authorization: token({ sub: 'e', workspace: 'acme', role: 'editor' }) }).error).toMatchObject({
      code: 'forbidden',
    });
  });

  it('never takes a JWT for the sync token when none is configured', () => {
    const withoutSync = guardWith({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET });
    expect(call(withoutSync, { authorization: `Bearer ${SYNC_TOKEN}`, 'x-workspace': 'acme' }).error).toMatchObject({
      code: 'unauthorized',
    });
  });

  it('with AUTH_MODE=none, is the anonymous admin unless the sync token names a workspace', () => {
    const open = guardWith({ AUTH_MODE: 'none', SYNC_TOKEN });
    expect(call(open, {}).request[PRINCIPAL_REQUEST_KEY]).toEqual(ANONYMOUS_PRINCIPAL);
    expect(
      call(open, { authorization: `Bearer ${SYNC_TOKEN}`, 'x-workspace': 'acme' }).request[PRINCIPAL_REQUEST_KEY],
    ).toMatchObject({ workspace: 'acme' });
  });
});

import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';

/** The secret the fuzzed service verifies with (AUTH_MODE=jwt). */
export const FUZZ_JWT_SECRET = 'fuzz-secret-of-at-least-32-characters!!';
/** The two workspaces the fuzz acts in: the demo's and one it imports the demo graph into. */
export const FUZZ_WORKSPACES = ['default', 'beta'] as const;

export interface FuzzPrincipal {
  name: string;
  /** The Authorization header's value; undefined: none sent. */
  authorization: string | undefined;
  /** The token alone (socket `auth.token` or a message's `token`). */
  token: string | undefined;
  /** A valid principal: its requests may succeed. */
  valid: boolean;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Signed by hand with any header (crit, alg none), whatever jsonwebtoken would allow. */
function handSigned(header: object, claims: object): string {
  const input = `${base64url(header)}.${base64url(claims)}`;
  return `${input}.${createHmac('sha256', FUZZ_JWT_SECRET).update(input).digest('base64url')}`;
}

const sign = (claims: object, options: jwt.SignOptions = {}) =>
  jwt.sign(claims, FUZZ_JWT_SECRET, { expiresIn: 3600, ...options });

/** The environment of a service the fuzz runs with authentication on. */
export function fuzzAuthEnv(): Record<string, string> {
  return { AUTH_MODE: 'jwt', JWT_SECRET: FUZZ_JWT_SECRET };
}

/**
 * Every role in both workspaces, then what a hostile or broken client sends: no token, an expired one,
 * one signed with another secret, one with an unknown critical header, an unsigned one (alg none), one
 * without workspace, garbage, and a Basic header.
 */
export function fuzzPrincipals(): FuzzPrincipal[] {
  const valid = FUZZ_WORKSPACES.flatMap((workspace) =>
    (['viewer', 'editor', 'admin'] as const).map((role) => {
      const token = sign({ sub: `${role}-${workspace}`, workspace, role });
      return { name: `${role}@${workspace}`, authorization: `Bearer ${token}`, token, valid: true };
    }),
  );
  const claims = { sub: 'mallory', workspace: 'default', role: 'admin' };
  const invalid: Array<[string, string | undefined, string | undefined]> = [
    ['no token', undefined, undefined],
    ['expired', undefined, sign(claims, { expiresIn: -60 })],
    ['forged', undefined, jwt.sign(claims, 'another-secret-of-32-characters!!!!')],
    ['crit header', undefined, handSigned({ alg: 'HS256', typ: 'JWT', crit: ['exp'] }, claims)],
    ['alg none', undefined, `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`],
    ['no workspace', undefined, sign({ sub: 'mallory', role: 'admin' })],
    ['garbage', undefined, 'not.a.jwt'],
    ['basic', 'Basic bWFsbG9yeTpwYXNzd29yZA==', undefined],
  ];
  return [
    ...valid,
    ...invalid.map(([name, authorization, token]) => ({
      name,
      authorization: authorization ?? (token !== undefined ? `Bearer ${token}` : undefined),
      token,
      valid: false,
    })),
  ];
}

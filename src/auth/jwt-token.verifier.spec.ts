import { createHmac, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError } from '../errors/app-error';
import { JwtTokenVerifier } from './jwt-token.verifier';

const SECRET = 'a-test-secret-of-32-characters!!';
const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const ec = generateKeyPairSync('ec', {
  namedCurve: 'prime256v1',
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

const claims = { sub: 'user-1', workspace: 'acme', role: 'editor' };

function base64url(value: object | string): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** Signs by hand, so a test can use any header (alg confusion, alg none) whatever jsonwebtoken allows. */
function handmadeHs256(payload: object, secret: string | Buffer): string {
  const signingInput = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(payload)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe(JwtTokenVerifier.name, () => {
  describe('HS256 secret', () => {
    const verifier = new JwtTokenVerifier({ secret: SECRET });

    it('maps sub, workspace and role to a principal', () => {
      const token = jwt.sign(claims, SECRET, { algorithm: 'HS256', expiresIn: 60 });
      expect(verifier.verify(token)).toEqual({ userId: 'user-1', workspace: 'acme', role: 'editor' });
    });

    it('gives the expiry of the token', () => {
      const token = jwt.sign(claims, SECRET, { algorithm: 'HS256', expiresIn: 60 });
      const { expiresAt } = verifier.authenticate(token);
      expect(expiresAt).toBeGreaterThan(Date.now() + 50_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 61_000);
      expect(verifier.authenticate(jwt.sign(claims, SECRET)).expiresAt).toBeUndefined();
    });

    it('defaults a missing role to viewer', () => {
      const token = jwt.sign({ sub: 'u', workspace: 'w' }, SECRET);
      expect(verifier.verify(token).role).toBe('viewer');
    });

    it.each(['superuser', 'Admin', '', 42, null])('refuses the role %p', (role) => {
      const token = jwt.sign({ sub: 'u', workspace: 'w', role }, SECRET);
      const error = failure(() => verifier.verify(token));
      expect(error.code).toBe('unauthorized');
      expect(error.statusCode).toBe(401);
      expect(error.message).toBe('Token role is not recognised');
    });

    it.each([
      ['no sub', { workspace: 'w' }],
      ['no workspace', { sub: 'u' }],
      ['an empty sub', { sub: '', workspace: 'w' }],
      ['a numeric workspace', { sub: 'u', workspace: 7 }],
    ])('refuses a token with %s', (_name, payload) => {
      const error = failure(() => verifier.verify(jwt.sign(payload, SECRET)));
      expect(error.code).toBe('unauthorized');
      expect(error.message).toBe('Token lacks the sub or workspace claim');
    });

    it('refuses an expired token', () => {
      const token = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 30 }, SECRET);
      expect(failure(() => verifier.verify(token))).toMatchObject({ code: 'unauthorized', message: 'Token expired' });
    });

    it('refuses a token before its not-before time', () => {
      const token = jwt.sign(claims, SECRET, { notBefore: 120 });
      expect(failure(() => verifier.verify(token))).toMatchObject({
        code: 'unauthorized',
        message: 'Token not yet valid',
      });
    });

    it('refuses a token signed with another secret', () => {
      const token = jwt.sign(claims, 'another-secret-of-32-characters!');
      expect(failure(() => verifier.verify(token))).toMatchObject({ code: 'unauthorized', message: 'Invalid token' });
    });

    it('refuses a token whose payload was changed after signing', () => {
      const [header, , signature] = jwt.sign(claims, SECRET).split('.');
      const forged = `${header}.${base64url({ ...claims, role: 'admin' })}.${signature}`;
      expect(failure(() => verifier.verify(forged))).toMatchObject({ code: 'unauthorized', message: 'Invalid token' });
    });

    it('refuses an unsigned token (alg none)', () => {
      const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
      expect(failure(() => verifier.verify(unsigned)).code).toBe('unauthorized');
    });

    it('refuses a correctly signed token whose crit header names an extension (RFC 7515 §4.1.11)', () => {
      for (const crit of [['exp'], ['b64'], ['urn:example:unknown'], []]) {
        const token = jwt.sign(claims, SECRET, { header: { alg: 'HS256', crit } as unknown as jwt.JwtHeader });
        expect(failure(() => verifier.verify(token))).toMatchObject({
          code: 'unauthorized',
          message: 'Invalid token: unsupported critical header',
        });
      }
      // The same token without crit is accepted: the refusal is the header's alone.
      expect(verifier.verify(jwt.sign(claims, SECRET)).userId).toBe('user-1');
    });

    it.each(['', 'abc', 'a.b.c', 'Bearer x.y.z'])('refuses the malformed token %p', (token) => {
      expect(failure(() => verifier.verify(token))).toMatchObject({ code: 'unauthorized', message: 'Invalid token' });
    });

    it('refuses an RS256 token when only a secret is configured', () => {
      const token = jwt.sign(claims, rsa.privateKey, { algorithm: 'RS256' });
      expect(failure(() => verifier.verify(token)).code).toBe('unauthorized');
    });

    it('never echoes the token or the library detail in the message', () => {
      const token = jwt.sign(claims, 'another-secret-of-32-characters!');
      const error = failure(() => verifier.verify(token));
      expect(error.message).not.toContain(token);
      expect(error.message).not.toMatch(/signature/i);
      expect(error.details).toBeUndefined();
    });
  });

  describe('public keys', () => {
    it('verifies RS256 with an RSA public key', () => {
      const verifier = new JwtTokenVerifier({ publicKey: rsa.publicKey });
      const token = jwt.sign(claims, rsa.privateKey, { algorithm: 'RS256', expiresIn: 60 });
      expect(verifier.verify(token)).toEqual({ userId: 'user-1', workspace: 'acme', role: 'editor' });
      expect(verifier.algorithms).toEqual(['RS256', 'RS384', 'RS512']);
    });

    it('verifies ES256 with a P-256 public key and accepts only ES256', () => {
      const verifier = new JwtTokenVerifier({ publicKey: ec.publicKey });
      const token = jwt.sign(claims, ec.privateKey, { algorithm: 'ES256' });
      expect(verifier.verify(token).userId).toBe('user-1');
      expect(verifier.algorithms).toEqual(['ES256']);
    });

    it('refuses a token signed by another key pair', () => {
      const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const verifier = new JwtTokenVerifier({ publicKey: ec.publicKey });
      const token = jwt.sign(claims, other.privateKey, { algorithm: 'ES256' });
      expect(failure(() => verifier.verify(token))).toMatchObject({ code: 'unauthorized', message: 'Invalid token' });
    });

    it('refuses an HS256 token signed with the public key as the secret (alg confusion)', () => {
      const verifier = new JwtTokenVerifier({ publicKey: rsa.publicKey });
      const confused = handmadeHs256(claims, rsa.publicKey);
      expect(failure(() => verifier.verify(confused))).toMatchObject({
        code: 'unauthorized',
        message: 'Invalid token',
      });
    });

    it('with a secret and a public key, verifies each token with the key of its algorithm only', () => {
      const verifier = new JwtTokenVerifier({ secret: SECRET, publicKey: rsa.publicKey });
      expect(verifier.verify(jwt.sign(claims, SECRET)).workspace).toBe('acme');
      expect(verifier.verify(jwt.sign(claims, rsa.privateKey, { algorithm: 'RS256' })).workspace).toBe('acme');
      expect(failure(() => verifier.verify(handmadeHs256(claims, rsa.publicKey))).code).toBe('unauthorized');
    });

    it('refuses to start with a key that is not a PEM public key, or of an unsupported type', () => {
      expect(() => new JwtTokenVerifier({ publicKey: 'not a key' })).toThrow(/JWT_PUBLIC_KEY/);
      const ed = generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' } });
      expect(() => new JwtTokenVerifier({ publicKey: ed.publicKey as unknown as string })).toThrow(
        /RSA key or an EC key/,
      );
    });
  });

  describe('issuer and audience', () => {
    const verifier = new JwtTokenVerifier({ secret: SECRET, issuer: 'https://nodius.example', audience: 'graph-ai' });

    it('accepts the configured issuer and audience', () => {
      const token = jwt.sign(claims, SECRET, { issuer: 'https://nodius.example', audience: 'graph-ai' });
      expect(verifier.verify(token).userId).toBe('user-1');
    });

    it.each([
      ['a wrong issuer', { issuer: 'https://evil.example', audience: 'graph-ai' }],
      ['a wrong audience', { issuer: 'https://nodius.example', audience: 'other-service' }],
      ['no issuer', { audience: 'graph-ai' }],
      ['no audience', { issuer: 'https://nodius.example' }],
    ])('refuses %s', (_name, options) => {
      const token = jwt.sign(claims, SECRET, options);
      expect(failure(() => verifier.verify(token))).toMatchObject({ code: 'unauthorized', message: 'Invalid token' });
    });

    it('ignores issuer and audience when none is configured', () => {
      const token = jwt.sign(claims, SECRET, { issuer: 'anyone', audience: 'anything' });
      expect(new JwtTokenVerifier({ secret: SECRET }).verify(token).userId).toBe('user-1');
    });
  });

  it('refuses every token when no key is configured', () => {
    const verifier = new JwtTokenVerifier({});
    expect(verifier.algorithms).toEqual([]);
    expect(failure(() => verifier.verify(jwt.sign(claims, SECRET))).code).toBe('unauthorized');
  });
});

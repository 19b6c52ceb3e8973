import { createPublicKey, createSecretKey, KeyObject } from 'node:crypto';
import jwt, { Algorithm, NotBeforeError, TokenExpiredError } from 'jsonwebtoken';
import { AppError } from '../errors/app-error';
import { Principal, Role } from './principal';

export interface JwtVerifierOptions {
  /** HS256/384/512 shared secret. */
  secret?: string;
  /** PEM public key (RSA → RS256/384/512, EC → ES256/384/512 by curve). */
  publicKey?: string;
  issuer?: string;
  audience?: string;
}

/** A verified token: who is calling and until when the token vouches for it. */
export interface VerifiedToken {
  principal: Principal;
  /** Epoch ms of the `exp` claim, when the token has one. */
  expiresAt: number | undefined;
}

const HMAC_ALGORITHMS: Algorithm[] = ['HS256', 'HS384', 'HS512'];
const RSA_ALGORITHMS: Algorithm[] = ['RS256', 'RS384', 'RS512'];
const EC_ALGORITHM_BY_CURVE: Record<string, Algorithm> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};
const ROLES: ReadonlySet<string> = new Set<Role>(['viewer', 'editor', 'admin']);

/**
 * Verifies a JWT and maps its claims to a Principal. No Nest in here: the HTTP
 * strategy and the Socket.IO authenticator both build on it.
 *
 * The algorithm decides which key verifies the token, and each key only accepts the algorithms of its
 * own type, so an HS256 token signed with the public key as a "secret" is refused (alg confusion).
 * A verifier without any key refuses every token.
 */
export class JwtTokenVerifier {
  // KeyObjects, parsed once: given a string, jsonwebtoken tries to parse it as a public key on every
  // call (about 50x slower), and a typed key lets it refuse an algorithm of the wrong family as well.
  private readonly secretKey: KeyObject | undefined;
  private readonly publicKey: KeyObject | undefined;
  private readonly asymmetricAlgorithms: Algorithm[];
  readonly issuer: string | undefined;
  readonly audience: string | undefined;

  constructor(options: JwtVerifierOptions) {
    this.secretKey = options.secret ? createSecretKey(Buffer.from(options.secret, 'utf8')) : undefined;
    this.publicKey = options.publicKey ? parsePublicKey(options.publicKey) : undefined;
    this.asymmetricAlgorithms = this.publicKey ? algorithmsForPublicKey(this.publicKey) : [];
    this.issuer = options.issuer || undefined;
    this.audience = options.audience || undefined;
  }

  /** Every algorithm some configured key accepts. */
  get algorithms(): Algorithm[] {
    return [...(this.secretKey ? HMAC_ALGORITHMS : []), ...this.asymmetricAlgorithms];
  }

  /** Verifies the token; throws AppError('unauthorized') with a short reason otherwise. */
  verify(token: string): Principal {
    return this.authenticate(token).principal;
  }

  /** As verify, also giving the token's expiry (a socket keeps its handshake principal only that long). */
  authenticate(token: string): VerifiedToken {
    let claims: unknown;
    try {
      const key = this.keyFor(token);
      claims = jwt.verify(token, key.key, {
        algorithms: key.algorithms,
        issuer: this.issuer,
        audience: this.audience,
      });
    } catch (error) {
      throw JwtTokenVerifier.toUnauthorized(error);
    }
    const principal = JwtTokenVerifier.toPrincipal(claims);
    const exp = (claims as { exp?: unknown }).exp;
    return { principal, expiresAt: typeof exp === 'number' ? exp * 1000 : undefined };
  }

  /**
   * The key (and the algorithms it may verify) for this token's header `alg`.
   * Throws AppError('unauthorized') when no configured key accepts that algorithm.
   */
  keyFor(token: string): { key: KeyObject; algorithms: Algorithm[] } {
    const decoded = typeof token === 'string' ? jwt.decode(token, { complete: true }) : null;
    const alg = decoded?.header.alg as Algorithm | undefined;
    if (!alg) throw unauthorized('Invalid token');
    // RFC 7515 §4.1.11: a token whose `crit` names an extension the verifier does not understand is
    // invalid. This verifier understands none, so any `crit` is refused (jsonwebtoken ignores it).
    if (decoded && 'crit' in decoded.header) throw unauthorized('Invalid token: unsupported critical header');
    if (this.secretKey && HMAC_ALGORITHMS.includes(alg)) return { key: this.secretKey, algorithms: HMAC_ALGORITHMS };
    if (this.publicKey && this.asymmetricAlgorithms.includes(alg)) {
      return { key: this.publicKey, algorithms: this.asymmetricAlgorithms };
    }
    throw unauthorized('Invalid token');
  }

  /** Claims → Principal: `sub` and `workspace` required, `role` defaults to viewer. */
  static toPrincipal(claims: unknown): Principal {
    if (typeof claims !== 'object' || claims === null) throw unauthorized('Invalid token');
    const { sub, workspace, role } = claims as Record<string, unknown>;
    if (!isNonEmptyString(sub) || !isNonEmptyString(workspace)) {
      throw unauthorized('Token lacks the sub or workspace claim');
    }
    if (role !== undefined && (typeof role !== 'string' || !ROLES.has(role))) {
      throw unauthorized('Token role is not recognised');
    }
    return { userId: sub, workspace, role: (role as Role | undefined) ?? 'viewer' };
  }

  /**
   * Any verification failure → AppError('unauthorized'). The message names the kind of failure
   * (expired, not yet valid, invalid) but never the library's detail (which key, which claim value).
   */
  static toUnauthorized(error: unknown): AppError {
    if (error instanceof AppError && error.code === 'unauthorized') return error;
    if (error instanceof TokenExpiredError) return unauthorized('Token expired');
    if (error instanceof NotBeforeError) return unauthorized('Token not yet valid');
    return unauthorized('Invalid token');
  }
}

function unauthorized(message: string): AppError {
  return new AppError('unauthorized', message);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function parsePublicKey(pem: string): KeyObject {
  try {
    return createPublicKey(pem);
  } catch {
    throw new Error('JWT_PUBLIC_KEY is not a PEM public key');
  }
}

function algorithmsForPublicKey(key: KeyObject): Algorithm[] {
  if (key.asymmetricKeyType === 'rsa') return RSA_ALGORITHMS;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'ec' && curve && EC_ALGORITHM_BY_CURVE[curve]) return [EC_ALGORITHM_BY_CURVE[curve]];
  throw new Error('JWT_PUBLIC_KEY must be an RSA key or an EC key on P-256, P-384 or P-521');
}

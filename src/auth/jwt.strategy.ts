import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import type { Request } from 'express';
import { Strategy } from 'passport-jwt';
import { bearerTokenOf } from './bearer-token';
import { JwtTokenVerifier } from './jwt-token.verifier';
import { Principal } from './principal';

/** Reads `Authorization: Bearer <JWT>`, strictly (bearer-token.ts); the one place HTTP takes the token from. */
export function extractBearerToken(request: Request): string | null {
  return bearerTokenOf(request.headers.authorization) ?? null;
}

/**
 * passport-jwt strategy for HTTP, built on JwtTokenVerifier's keys, algorithms, issuer, audience and
 * claim mapping, so HTTP and Socket.IO accept and refuse exactly the same tokens.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(verifier: JwtTokenVerifier) {
    super({
      jwtFromRequest: extractBearerToken,
      // The key follows the token's algorithm family, and the family must match the key type (no alg confusion).
      secretOrKeyProvider: (_request: unknown, rawJwtToken: string, done: (error: unknown, key?: string) => void) => {
        let key: KeyObject;
        try {
          key = verifier.keyFor(rawJwtToken).key;
        } catch (error) {
          done(error);
          return;
        }
        // passport-jwt hands the key to jsonwebtoken untouched, which takes KeyObjects (its typings say string | Buffer).
        done(null, key as unknown as string);
      },
      algorithms: verifier.algorithms,
      issuer: verifier.issuer,
      audience: verifier.audience,
    });
  }

  validate(claims: unknown): Principal {
    return JwtTokenVerifier.toPrincipal(claims);
  }
}

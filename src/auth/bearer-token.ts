import { AppError } from '../errors/app-error';

/** `Bearer <token>` and nothing else: one scheme word, one token, optional trailing spaces (RFC 6750 §2.1). */
const BEARER_HEADER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The token of an `Authorization` header value, read the same way by HTTP and by the Socket.IO
 * handshake: undefined when there is no header or another scheme (Basic), null when it says Bearer
 * but is malformed (`Bearer <jwt> junk`, `Bearer` alone), which is refused rather than read as the
 * token it starts with.
 */
export function bearerTokenOf(header: unknown): string | null | undefined {
  if (typeof header !== 'string' || !/^Bearer(\s|$)/i.test(header)) return undefined;
  return BEARER_HEADER.exec(header)?.[1] ?? null;
}

/** The bearer token of an `Authorization` header value, or 401 unauthorized saying whether it is missing or malformed. */
export function requireBearerToken(header: unknown): string {
  const token = bearerTokenOf(header);
  if (token === undefined) throw new AppError('unauthorized', 'Missing bearer token');
  if (token === null) throw new AppError('unauthorized', 'Malformed Authorization header: expected "Bearer <token>"');
  return token;
}

import type { ErrorCode } from '../src/errors/error-code';
import { ERROR_HTTP_STATUS } from '../src/errors/error-code';

const KNOWN_CODES = new Set(Object.keys(ERROR_HTTP_STATUS) as ErrorCode[]);
const FIELDS = new Set(['statusCode', 'code', 'message', 'details', 'retryable']);

/**
 * Why an HTTP error answer is not in PROTOCOL.md §3's shape `{ statusCode, code, message, details?,
 * retryable? }` (no other field, statusCode the answer's status, a known code), or null when it is.
 */
export function errorShapeProblem(body: unknown, status: number): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return `not a JSON object: ${String(body).slice(0, 80)}`;
  const record = body as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !FIELDS.has(key));
  if (extra.length > 0) return `unexpected fields ${extra.join(', ')}`;
  if (record.statusCode !== status) return `statusCode ${String(record.statusCode)} on a ${status}`;
  if (typeof record.code !== 'string' || !KNOWN_CODES.has(record.code as ErrorCode))
    return `unknown code ${String(record.code)}`;
  if (typeof record.message !== 'string' || record.message.length === 0) return 'no message';
  if (record.retryable !== undefined && typeof record.retryable !== 'boolean') return 'retryable is not a boolean';
  return null;
}

/** The same for a socket `ai:error`: `{ _id, error, code, retryable }` (PROTOCOL.md §4), never `internal`. */
export function socketErrorShapeProblem(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return 'not an object';
  const record = payload as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !['_id', 'error', 'code', 'retryable', 'seq'].includes(key));
  if (extra.length > 0) return `unexpected fields ${extra.join(', ')}`;
  if (record._id !== null && typeof record._id !== 'number') return '_id is neither a number nor null';
  if (typeof record.error !== 'string' || record.error.length === 0) return 'no error text';
  if (typeof record.code !== 'string' || !KNOWN_CODES.has(record.code as ErrorCode))
    return `unknown code ${String(record.code)}`;
  if (record.code === 'internal') return 'internal (the socket form of a 5xx)';
  if (typeof record.retryable !== 'boolean') return 'retryable is not a boolean';
  return null;
}

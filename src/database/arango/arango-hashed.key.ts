import { createHash } from 'node:crypto';

/**
 * A document `_key` for values ArangoDB would refuse as keys (a workspace, a user id or an
 * Idempotency-Key may hold any character and be longer than a key may be): `<prefix>_<sha256 hex>` of
 * the values as a JSON array, so ("a", "b|c") and ("a|b", "c") never share a key. The values
 * themselves are stored as attributes of the document, readable by operators.
 */
export function hashedDocumentKey(prefix: string, parts: readonly string[]): string {
  return `${prefix}_${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`;
}

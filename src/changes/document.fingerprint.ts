import { createHash } from 'node:crypto';
import type { DocumentFingerprint } from '../conversation/proposal-preview';

/** Fields a store manages itself: a node whose vector was recomputed has not changed. */
const NOT_CONTENT = new Set(['embedding', 'embeddingModel', 'embeddingHash']);

/**
 * A node's or edge's fingerprint (in a proposal's basis): the first 16 hex digits of the SHA-256 of its
 * document as canonical JSON (keys sorted, undefined left out, vector fields ignored); null for an absent one. Two
 * documents with the same content have the same fingerprint whatever their key order or store.
 */
export function fingerprintOf(document: object | null | undefined): DocumentFingerprint {
  if (!document) return null;
  return createHash('sha256').update(canonicalJson(document, true)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown, topLevel = false): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key, item]) => item !== undefined && !(topLevel && NOT_CONTENT.has(key)))
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

import { createHash } from 'node:crypto';
import { documentCanonicalJson } from '../conversation/document-canonical-json';
import type { DocumentFingerprint } from '../conversation/proposal-preview';

/**
 * A node's or edge's fingerprint (in a proposal's basis): the first 16 hex digits of the SHA-256 of its
 * document as canonical JSON (keys sorted, undefined left out, vector fields ignored); null for an absent one. Two
 * documents with the same content have the same fingerprint whatever their key order or store.
 */
export function fingerprintOf(document: object | null | undefined): DocumentFingerprint {
  if (!document) return null;
  return createHash('sha256').update(documentCanonicalJson(document)).digest('hex').slice(0, 16);
}

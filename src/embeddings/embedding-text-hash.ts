import { createHash } from 'node:crypto';

/**
 * SHA-256 (hex) of an embedding text, stored beside the vector: the same text always gives the same
 * hash, so a node whose text did not change is never embedded again (together with the model name:
 * a vector is current when both its model and its hash match).
 */
export function embeddingTextHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

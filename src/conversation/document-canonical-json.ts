/** Fields a store manages itself: a node whose vector was recomputed has not changed. */
const NOT_CONTENT = new Set(['embedding', 'embeddingModel', 'embeddingHash']);

/**
 * What a node's or edge's fingerprint hashes (docs/protocol.md §9.2): the document as canonical JSON, keys sorted,
 * undefined left out, the vector fields of the top level ignored. Pure, so the client computes the same fingerprints
 * from the graph it shows as the service from its store.
 */
export function documentCanonicalJson(document: object): string {
  return canonicalJson(document, true);
}

function canonicalJson(value: unknown, topLevel = false): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([key, item]) => item !== undefined && !(topLevel && NOT_CONTENT.has(key)))
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

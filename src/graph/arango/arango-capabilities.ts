/** What the connected server can do, detected once at start (arango-schema.ts). */
export interface ArangoCapabilities {
  /** e.g. "3.12.4". */
  version: string;
  /**
   * A usable cosine vector index on `nodius_nodes.embedding`, or null. Usable means the server applies
   * FILTERs during the index lookup (3.12.6+): before that, a per-graph search through the index
   * would only see the collection-wide nearest neighbours and could miss a small graph entirely.
   */
  vectorIndex: { name: string; dimension: number } | null;
}

/** First server version whose vector index honours FILTERs placed before the SORT (pre-filtering). */
export const VECTOR_PREFILTER_VERSION = '3.12.6';

/** Compares dotted versions numerically ("3.12.10" > "3.12.6"); suffixes such as "-rc1" are ignored. */
export function compareVersions(left: string, right: string): number {
  const parse = (version: string): number[] => version.split('-')[0].split('.').map((part) => Number.parseInt(part, 10) || 0);
  const a = parse(left);
  const b = parse(right);
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

interface IndexLike {
  type: string;
  name?: string;
  fields?: unknown;
  params?: { metric?: string; dimension?: number };
}

/** Picks the cosine vector index over `embedding` among the collection's indexes, if the server can use it per graph. */
export function detectVectorIndex(version: string, indexes: readonly IndexLike[]): ArangoCapabilities['vectorIndex'] {
  if (compareVersions(version, VECTOR_PREFILTER_VERSION) < 0) return null;
  const index = indexes.find(
    (candidate) =>
      candidate.type === 'vector' &&
      candidate.params?.metric === 'cosine' &&
      Array.isArray(candidate.fields) &&
      candidate.fields.length === 1 &&
      candidate.fields[0] === 'embedding' &&
      typeof candidate.params.dimension === 'number',
  );
  return index ? { name: index.name ?? 'vector', dimension: index.params?.dimension as number } : null;
}

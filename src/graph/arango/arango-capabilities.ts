/** What the connected server can do, detected once at start (arango-graph.schema.ts). */
export interface ArangoCapabilities {
  /** e.g. "3.12.4". */
  version: string;
  /**
   * A usable cosine vector index on `nodius_nodes.embedding`, or null. Usable means the server applies
   * FILTERs during the index lookup (3.12.6+: before that, a per-graph search through the index
   * would only see the collection-wide nearest neighbours and could miss a small graph entirely) and
   * the index is trained (`trainingState` "ready", reported from 3.12.9 on).
   */
  vectorIndex: VectorIndexInfo | null;
}

export interface VectorIndexInfo {
  name: string;
  dimension: number;
  /** Centroids the index was trained with; null when the server does not say (nLists given as a scaling rule). */
  nLists: number | null;
  /** Centroids probed when a query names no nProbe (the index's `defaultNProbe`, 1 unless set). */
  defaultNProbe: number;
  /** Attributes stored in the index for pre-filtering (3.12.7+), e.g. ["graphKey", "embeddingModel"]. */
  storedValues: string[];
}

/** First server version whose vector index honours FILTERs placed before the SORT (pre-filtering). */
export const VECTOR_PREFILTER_VERSION = '3.12.6';

/** Compares dotted versions numerically ("3.12.10" > "3.12.6"); suffixes such as "-rc1" are ignored. */
export function compareVersions(left: string, right: string): number {
  const parse = (version: string): number[] =>
    version
      .split('-')[0]
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const a = parse(left);
  const b = parse(right);
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/** An index as `GET /_api/index?withHidden=true` describes it (only what detection reads). */
export interface IndexLike {
  type: string;
  name?: string;
  fields?: unknown;
  /** Present while the index is still being built (withHidden). */
  progress?: number;
  /** Vector indexes, 3.12.9+: "unusable" | "training" | "ingesting" | "ready". */
  trainingState?: string;
  errorMessage?: string;
  storedValues?: unknown;
  params?: { metric?: string; dimension?: number; nLists?: unknown; defaultNProbe?: number };
  /** Vector indexes, 3.12.10+ with withHidden: per shard (the collection name on a single server). */
  shards?: Record<string, { resolvedNLists?: number }>;
}

export interface VectorIndexDetection {
  vectorIndex: VectorIndexInfo | null;
  /** Cosine vector indexes on `embedding` left unused, and why (logged at start). */
  ignored: Array<{ name: string; reason: string }>;
}

/**
 * Picks the cosine vector index over `embedding` among the collection's indexes, if the server can
 * use it per graph and it is trained. On servers before 3.12.9, which report no training state, an
 * index is taken as trained (a query through an untrained one fails, and the search falls back to
 * the exact scan).
 */
export function detectVectorIndex(version: string, indexes: readonly IndexLike[]): VectorIndexDetection {
  const ignored: VectorIndexDetection['ignored'] = [];
  for (const index of indexes) {
    const fields = index.fields;
    const isCandidate =
      index.type === 'vector' &&
      index.params?.metric === 'cosine' &&
      Array.isArray(fields) &&
      fields.length === 1 &&
      fields[0] === 'embedding' &&
      typeof index.params.dimension === 'number';
    if (!isCandidate) continue;
    const name = index.name ?? 'vector';
    if (compareVersions(version, VECTOR_PREFILTER_VERSION) < 0) {
      ignored.push({
        name,
        reason: `ArangoDB ${version} cannot filter by graph inside the index lookup (${VECTOR_PREFILTER_VERSION}+ needed)`,
      });
    } else if (index.progress !== undefined) {
      ignored.push({ name, reason: `still being built (${index.progress} %)` });
    } else if (index.trainingState !== undefined && index.trainingState !== 'ready') {
      ignored.push({
        name,
        reason: `trainingState ${index.trainingState}${index.errorMessage ? `: ${index.errorMessage}` : ''}`,
      });
    } else {
      return {
        vectorIndex: {
          name,
          dimension: index.params?.dimension as number,
          nLists: trainedLists(index),
          defaultNProbe: typeof index.params?.defaultNProbe === 'number' ? index.params.defaultNProbe : 1,
          storedValues: Array.isArray(index.storedValues)
            ? index.storedValues.filter((value): value is string => typeof value === 'string')
            : [],
        },
        ignored,
      };
    }
  }
  return { vectorIndex: null, ignored };
}

/** A fixed `nLists`, or (3.12.10+ scaling mode) the largest number a shard resolved it to. */
function trainedLists(index: IndexLike): number | null {
  if (typeof index.params?.nLists === 'number') return index.params.nLists;
  const resolved = Object.values(index.shards ?? {})
    .map((shard) => shard.resolvedNLists)
    .filter((value): value is number => typeof value === 'number' && value > 0);
  return resolved.length > 0 ? Math.max(...resolved) : null;
}

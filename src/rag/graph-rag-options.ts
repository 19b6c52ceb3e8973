import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { RetrievalObserver } from './retrieval.observer';

/** Tuning of GraphRagRetriever; every field has a default. */
export interface GraphRagOptions {
  /** Most nodes in a context. Default 20. */
  maxNodes?: number;
  /** BFS depth of the neighbourhood expansion (0 = none, at most 3). Default 2. */
  maxDepth?: number;
  /**
   * Share of maxNodes kept for the neighbourhood of the best hits when search alone would fill
   * the context (0 = hits first, neighbours only in the slots left). Default 0.25.
   */
  expansionShare?: number;
  /**
   * Weight of the vector list against BM25's 1 in the score fusion: its best hit is worth this
   * much. Default 0.5.
   */
  vectorWeight?: number;
  /**
   * Share of an expansion seed's fused score that each search hit one edge away from it gains
   * (graph-aware ranking; 0 = none). Default 0.3.
   */
  linkedHitBoost?: number;
  /** Characters of `process` kept per node. Default 500. */
  truncateProcess?: number;
  /** Characters of `data` JSON kept per node. Default 200. */
  truncateData?: number;
  /** Lifetime of a cached context in ms; 0 disables the cache. Default 120000. */
  cacheTTLMs?: number;
  /** Bound of the cache (LRU beyond it). Default 500. */
  cacheMaxEntries?: number;
  /** Query embeddings for hybrid search; null means BM25 only. Default null. */
  embeddingProvider?: EmbeddingProvider | null;
  /** A query embedding slower than this is abandoned (BM25 only for that question). Default 3000. */
  embeddingTimeoutMs?: number;
  /** Injectable clock (ms) for the cache TTL. Default Date.now. */
  clock?: () => number;
  /** Told about each retrieval (search mode, cache hit, duration) for metrics. Default none. */
  observer?: RetrievalObserver;
}

export type ResolvedGraphRagOptions = Required<Omit<GraphRagOptions, 'clock' | 'observer'>> &
  Pick<GraphRagOptions, 'clock' | 'observer'>;

export const DEFAULT_GRAPH_RAG_OPTIONS: Readonly<ResolvedGraphRagOptions> = Object.freeze({
  maxNodes: 20,
  maxDepth: 2,
  expansionShare: 0.25,
  vectorWeight: 0.5,
  linkedHitBoost: 0.3,
  truncateProcess: 500,
  truncateData: 200,
  cacheTTLMs: 120_000,
  cacheMaxEntries: 500,
  embeddingProvider: null,
  embeddingTimeoutMs: 3000,
});

/** Nodes whose neighbourhoods are expanded (the 5 best). */
export const EXPANSION_SEED_COUNT = 5;

/** Cosine similarity at or below which a vector hit is dropped (0.3), unless the provider sets its own minSimilarity. */
export const VECTOR_MIN_SCORE = 0.3;

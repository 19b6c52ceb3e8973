import type { GraphRAGContext } from '../conversation/graph-rag-context';

/** One finished retrieval: how the nodes were found, whether the cache answered, how long it took. */
export interface RetrievalEvent {
  searchMode: GraphRAGContext['retrieval']['searchMode'];
  cacheHit: boolean;
  durationMs: number;
}

/** Told about every successful retrieval (metrics); RagModule binds it to RetrievalMetrics. */
export interface RetrievalObserver {
  retrieved(event: RetrievalEvent): void;
}

/** What one embedding run did (write-path job or `npm run ai:embed-nodes`). Counts only, never content. */
export interface EmbeddingRunReport {
  /** Nodes looked at. */
  processed: number;
  /** Vectors computed and stored. */
  embedded: number;
  /** No embedding text (no type, code or data). */
  skippedEmpty: number;
  /** Stored vector already of this model and this text hash. */
  skippedUnchanged: number;
  /** No vector: the provider failed for them (after retries), the store refused, or the run was stopped. */
  failed: number;
  /** Upstream embedding calls (retries and split batches included). */
  upstreamCalls: number;
}

export function emptyEmbeddingRunReport(): EmbeddingRunReport {
  return { processed: 0, embedded: 0, skippedEmpty: 0, skippedUnchanged: 0, failed: 0, upstreamCalls: 0 };
}

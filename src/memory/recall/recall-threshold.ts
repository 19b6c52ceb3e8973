import type { EmbeddingProvider } from '../../embeddings/embedding-provider';

/** The default threshold of recall (docs/memory.md): records whose cosine similarity to the question is above 0.7. */
export const SEED_RECALL_MIN_SCORE = 0.7;

/**
 * The similarity a recalled record must exceed when MEMORY_RECALL_MIN_SCORE is not set: 0.7,
 * for models scoring on the usual scale; twice the noise floor of a model that declares its own
 * (the local hashed embedding scores unrelated texts near 0.03-0.1 and related ones near 0.4, so 0.2).
 */
export function defaultRecallMinScore(provider: Pick<EmbeddingProvider, 'minSimilarity'>): number {
  return provider.minSimilarity === undefined ? SEED_RECALL_MIN_SCORE : Math.min(SEED_RECALL_MIN_SCORE, 2 * provider.minSimilarity);
}

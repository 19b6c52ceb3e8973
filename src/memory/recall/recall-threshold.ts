import type { EmbeddingProvider } from '../../embeddings/embedding-provider';

/** The default threshold of recall: records whose cosine similarity to the question is above 0.7. */
export const SEED_RECALL_MIN_SCORE = 0.7;

/**
 * The similarity a recalled record must exceed when MEMORY_RECALL_MIN_SCORE is not set: 0.7 for
 * models scoring on the usual scale; the noise floor of a model that declares its own. The local
 * embeddings declare 0.1: they score turns about other things from about -0.02 to 0.06, and a turn
 * stating a fact, against a question about it, from about 0.5 (a short answer) down to 0.16 (a long
 * answer dilutes what the user said), so anything stricter than their floor would miss facts.
 */
export function defaultRecallMinScore(provider: Pick<EmbeddingProvider, 'minSimilarity'>): number {
  return Math.min(SEED_RECALL_MIN_SCORE, provider.minSimilarity ?? SEED_RECALL_MIN_SCORE);
}

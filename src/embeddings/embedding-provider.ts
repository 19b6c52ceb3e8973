/**
 * Turns texts into vectors, in batches. Separate from LlmProvider:
 * not every chat provider offers embeddings.
 */
export interface EmbeddingProvider {
  /** Stored with every vector; vectors of different models are never compared. */
  readonly modelName: string;
  /** Vector length. A model outside the OpenAI table reports 0 until its first response teaches it. */
  readonly dimension: number;
  /**
   * Cosine similarity at or below which this model's hits are noise, when it differs from the
   * default 0.3 (tuned for OpenAI models). The local hashed embedding scores related texts lower
   * (often 0.1-0.4), so it sets 0.1. Absent: use the retriever's default.
   */
  readonly minSimilarity?: number;
  /** One vector per text, same order. Implementations batch upstream calls. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  embedOne(text: string, signal?: AbortSignal): Promise<Float32Array>;
}

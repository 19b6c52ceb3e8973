/**
 * Turns texts into vectors (seed 000 EmbeddingProvider, batched). Separate from LlmProvider:
 * not every chat provider offers embeddings.
 */
export interface EmbeddingProvider {
  /** Stored with every vector; vectors of different models are never compared. */
  readonly modelName: string;
  readonly dimension: number;
  /** One vector per text, same order. Implementations batch upstream calls. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  embedOne(text: string, signal?: AbortSignal): Promise<Float32Array>;
}

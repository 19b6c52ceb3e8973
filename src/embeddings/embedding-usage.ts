/** One upstream embedding call's usage, as reported by the endpoint. */
export interface EmbeddingUsage {
  /** "openai", "openai-compatible". */
  provider: string;
  model: string;
  inputTokens: number;
  /** USD per million input tokens (0 for self-hosted or unknown models). */
  pricePerMillion: number;
}

/** Where adapters report usage: EmbeddingsModule wires it to TokenTracker.recordEmbedding. */
export type EmbeddingUsageListener = (usage: EmbeddingUsage) => void;

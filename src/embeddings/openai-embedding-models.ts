/** What is known about an OpenAI embedding model. */
export interface OpenAiEmbeddingModelInfo {
  dimension: number;
  /** USD per million input tokens. */
  pricePerMillion: number;
  /** Longest input the endpoint accepts, in cl100k_base tokens. */
  maxInputTokens: number;
}

export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

/** Input limit assumed for models that are not in the table (OpenAI's; self-hosted servers usually truncate themselves). */
export const DEFAULT_MAX_INPUT_TOKENS = 8191;

export const OPENAI_EMBEDDING_MODELS: Readonly<Record<string, OpenAiEmbeddingModelInfo>> = Object.freeze({
  'text-embedding-3-small': { dimension: 1536, pricePerMillion: 0.02, maxInputTokens: 8191 },
  'text-embedding-3-large': { dimension: 3072, pricePerMillion: 0.13, maxInputTokens: 8191 },
  'text-embedding-ada-002': { dimension: 1536, pricePerMillion: 0.1, maxInputTokens: 8191 },
});

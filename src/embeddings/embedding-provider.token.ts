/** Injection token of the EmbeddingProvider, or null when embeddings are off (EMBEDDING_PROVIDER=none). */
export const EMBEDDING_PROVIDER = Symbol('EMBEDDING_PROVIDER');

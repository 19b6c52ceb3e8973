/** What another thread needs to build the same local model (it then gives the same vectors, bit for bit). */
export type LocalEmbeddingRecipe = { model: 'hash'; dimension: number } | { model: 'words'; file: string };

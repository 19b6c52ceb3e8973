import { parentPort, workerData } from 'node:worker_threads';
import { runAtBackgroundPriority } from '../graph/worker-thread.entry';
import { LocalEmbeddingRecipe } from './local-embedding.recipe';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';
import { LocalWordsEmbeddingProvider } from './local-words-embedding.provider';

/**
 * The local embedding thread (LocalEmbeddingWorker): the same local model as the service's, built
 * from its recipe; `{ id, texts }` → `{ id, vectors }` (each vector's buffer transferred).
 */
const port = parentPort;
if (!port) throw new Error('local-embedding.thread runs in a worker thread');
runAtBackgroundPriority();
const recipe = workerData as LocalEmbeddingRecipe;
const provider =
  recipe.model === 'hash'
    ? new LocalHashEmbeddingProvider({ dimension: recipe.dimension })
    : new LocalWordsEmbeddingProvider(recipe.file);

port.on('message', ({ id, texts }: { id: number; texts: string[] }) => {
  try {
    const vectors = texts.map((text) => provider.vectorize(text));
    port.postMessage(
      { id, vectors },
      vectors.map((vector) => vector.buffer as ArrayBuffer),
    );
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});

import { throwIfAborted } from '../providers/llm-abort.error';
import { EmbeddingProvider } from './embedding-provider';
import { LocalEmbeddingRecipe } from './local-embedding.recipe';

/** Computes a batch of this model's vectors elsewhere (LocalEmbeddingWorker: in a worker thread). */
export interface BatchVectorizer {
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Texts vectorized between two turns given to the event loop. */
const YIELD_EVERY_TEXTS = 16;

/**
 * The EmbeddingProvider port over a local, CPU-bound, synchronous `vectorize` (the local models).
 * Batches (a graph's nodes) go to the BatchVectorizer when one is given (the service's: a worker
 * thread); otherwise they are computed here, the signal checked before each text and the event loop
 * given a turn every 16 texts. A single text (a question) is always vectorized here, at once.
 */
export abstract class SynchronousEmbeddingProvider implements EmbeddingProvider {
  abstract readonly modelName: string;
  abstract readonly dimension: number;
  abstract readonly minSimilarity?: number;
  private batches: BatchVectorizer | null = null;

  /** One text's vector, computed at once. */
  abstract vectorize(text: string): Float32Array;

  /** How another thread builds the same model. */
  abstract get recipe(): LocalEmbeddingRecipe;

  /** Loads now what `vectorize` loads on its first call (a model's tables), so that no question pays for it. */
  prepare(): void {
    // Nothing to load by default.
  }

  /** Sends batches to `batches` from now on. */
  vectorizeBatchesWith(batches: BatchVectorizer): void {
    this.batches = batches;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.batches) return this.batches.embed(texts, signal);
    const vectors: Float32Array[] = [];
    for (let index = 0; index < texts.length; index++) {
      throwIfAborted(signal);
      if (index > 0 && index % YIELD_EVERY_TEXTS === 0) await new Promise((resolve) => setImmediate(resolve));
      vectors.push(this.vectorize(texts[index]));
    }
    return vectors;
  }

  async embedOne(text: string, signal?: AbortSignal): Promise<Float32Array> {
    throwIfAborted(signal);
    return this.vectorize(text);
  }
}

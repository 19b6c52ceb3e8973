import { throwIfAborted } from '../providers/llm-abort.error';
import { EmbeddingProvider } from './embedding-provider';

/** Texts vectorized between two turns given to the event loop. */
const YIELD_EVERY_TEXTS = 16;

/**
 * The EmbeddingProvider port over a local, CPU-bound, synchronous `vectorize` (the local models):
 * the signal is checked before each text, and a batch gives the event loop a turn every 16 texts so
 * it never stalls requests.
 */
export abstract class SynchronousEmbeddingProvider implements EmbeddingProvider {
  abstract readonly modelName: string;
  abstract readonly dimension: number;
  abstract readonly minSimilarity?: number;

  /** One text's vector, computed at once. */
  abstract vectorize(text: string): Float32Array;

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
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

import { createDotProductKernel, DotProductKernel } from './dot-product.kernel';
import { TopKCollector } from './top-k.collector';

export interface VectorEntry {
  key: string;
  vector: Float32Array;
}

/**
 * Exact cosine search over vectors of ONE embedding model: rows are normalized once into one
 * contiguous Float32 matrix (n × dimension, padded), so a query is one normalization plus a dot
 * product per row, done by a WebAssembly SIMD kernel (see dot-product.kernel.ts). No approximation:
 * every row is scored. Rows whose dimension differs from the first row's, or whose norm is zero,
 * are left out (`skipped`): they cannot be compared.
 */
export class VectorIndex {
  private constructor(
    readonly dimension: number,
    private readonly keys: string[],
    private readonly kernel: DotProductKernel | null,
    readonly skipped: number,
  ) {}

  static build(
    entries: Iterable<VectorEntry>,
    createKernel: (rows: number, dimension: number) => DotProductKernel = createDotProductKernel,
  ): VectorIndex {
    const list = Array.isArray(entries) ? (entries as VectorEntry[]) : [...entries];
    const dimension = list.find((entry) => entry.vector.length > 0)?.vector.length ?? 0;
    const rows: Array<{ vector: Float32Array; norm: number }> = [];
    const keys: string[] = [];
    for (const { key, vector } of list) {
      const norm = vector.length === dimension ? euclideanNorm(vector) : 0;
      if (norm === 0) continue;
      rows.push({ vector, norm });
      keys.push(key);
    }
    const kernel = rows.length > 0 ? createKernel(rows.length, dimension) : null;
    if (kernel) {
      rows.forEach(({ vector, norm }, row) => {
        const offset = row * kernel.width;
        for (let index = 0; index < dimension; index += 1) kernel.matrix[offset + index] = vector[index] / norm;
      });
    }
    return new VectorIndex(dimension, keys, kernel, list.length - rows.length);
  }

  get size(): number {
    return this.keys.length;
  }

  /**
   * Rows whose cosine similarity with `query` is strictly above `minScore`, best first, at most
   * `limit`; ties by insertion order. A query of another dimension (or a zero vector) matches nothing.
   */
  search(query: ArrayLike<number>, minScore: number, limit: number): Array<{ key: string; score: number }> {
    const { kernel, dimension } = this;
    if (!kernel || limit <= 0 || query.length !== dimension) return [];
    const norm = euclideanNorm(query);
    if (norm === 0) return [];
    for (let index = 0; index < dimension; index += 1) kernel.query[index] = query[index] / norm;
    kernel.run();
    const scores = kernel.scores;
    const collector = new TopKCollector(limit);
    for (let row = 0; row < scores.length; row += 1) {
      const score = scores[row];
      if (score > minScore && score > collector.threshold) collector.offer(row, score);
    }
    return collector.result().map(({ item, score }) => ({ key: this.keys[item], score: Math.min(1, score) }));
  }
}

function euclideanNorm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index += 1) sum += vector[index] * vector[index];
  return Math.sqrt(sum);
}

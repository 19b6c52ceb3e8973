import { TopKCollector } from './top-k.collector';

export interface VectorEntry {
  key: string;
  vector: Float32Array;
}

/**
 * Exact cosine search over vectors of ONE embedding model: rows are normalized once into a single
 * contiguous Float32Array (n × dimension), so a query is one normalization plus a dot product per
 * row, scanned in memory order. Rows whose dimension differs from the first row's, or whose norm is
 * zero, are left out (`skipped`): they cannot be compared.
 */
export class VectorIndex {
  private constructor(
    readonly dimension: number,
    private readonly keys: string[],
    private readonly matrix: Float32Array,
    readonly skipped: number,
  ) {}

  static build(entries: Iterable<VectorEntry>): VectorIndex {
    const list = Array.isArray(entries) ? (entries as VectorEntry[]) : [...entries];
    const dimension = list.find((entry) => entry.vector.length > 0)?.vector.length ?? 0;
    const keys: string[] = [];
    const matrix = new Float32Array(list.length * dimension);
    let skipped = 0;
    for (const { key, vector } of list) {
      const norm = vector.length === dimension ? euclideanNorm(vector) : 0;
      if (norm === 0) {
        skipped += 1;
        continue;
      }
      const offset = keys.length * dimension;
      for (let index = 0; index < dimension; index += 1) matrix[offset + index] = vector[index] / norm;
      keys.push(key);
    }
    return new VectorIndex(dimension, keys, matrix.subarray(0, keys.length * dimension), skipped);
  }

  get size(): number {
    return this.keys.length;
  }

  /**
   * Rows whose cosine similarity with `query` is strictly above `minScore`, best first, at most
   * `limit`; ties by insertion order. A query of another dimension (or a zero vector) matches nothing.
   */
  search(query: ArrayLike<number>, minScore: number, limit: number): Array<{ key: string; score: number }> {
    const dimension = this.dimension;
    if (limit <= 0 || this.keys.length === 0 || query.length !== dimension) return [];
    const norm = euclideanNorm(query);
    if (norm === 0) return [];
    const unit = new Float32Array(dimension);
    for (let index = 0; index < dimension; index += 1) unit[index] = query[index] / norm;

    const matrix = this.matrix;
    const collector = new TopKCollector(limit);
    const unrolled = dimension - (dimension % 4);
    for (let row = 0, offset = 0; row < this.keys.length; row += 1, offset += dimension) {
      // Four independent sums let the CPU overlap the multiply-adds.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let index = 0;
      for (; index < unrolled; index += 4) {
        s0 += matrix[offset + index] * unit[index];
        s1 += matrix[offset + index + 1] * unit[index + 1];
        s2 += matrix[offset + index + 2] * unit[index + 2];
        s3 += matrix[offset + index + 3] * unit[index + 3];
      }
      for (; index < dimension; index += 1) s0 += matrix[offset + index] * unit[index];
      const score = s0 + s1 + s2 + s3;
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

import { createDotProductKernel, DotProductKernel } from './dot-product.kernel';
import { TopKCollector } from './top-k.collector';
import { WasmInt8DotProductKernel } from './wasm-int8-dot-product.kernel';

export interface VectorEntry {
  key: string;
  vector: Float32Array;
}

export interface VectorIndexOptions {
  createKernel?: (rows: number, dimension: number) => DotProductKernel;
  /** Below this many rows the int8 pre-scan is not worth its memory: every query is a full float32 scan. */
  minRowsForPrescan?: number;
}

/** Covers float32 rounding between the bound's arithmetic and the exact scores (≪ any meaningful score gap). */
const ROUNDING_MARGIN = 1e-4;

/** The rows quantized to int8 (one scale per row) and how far each quantized row is from the exact one. */
interface Int8Rows {
  kernel: WasmInt8DotProductKernel;
  scales: Float64Array;
  residuals: Float64Array;
}

/**
 * EXACT cosine search over vectors of ONE embedding model. Rows are normalized once into a float32
 * matrix (n × dimension, padded) scanned by a WebAssembly SIMD kernel. On large indexes a query first
 * scans an int8 copy of the matrix (a quarter of the memory traffic, which is what bounds the scan),
 * with a proven error bound per row: |q·x − q̂·x̂| ≤ ‖q̂‖·‖x − x̂‖ + ‖q − q̂‖. Only rows whose upper bound
 * can reach the result (above `minScore` and above the k-th best lower bound) are scored exactly, so
 * the answer is the exact one; when too many rows qualify, the full float32 scan runs instead.
 * Rows whose dimension differs from the first row's, or whose norm is zero, are left out (`skipped`).
 */
export class VectorIndex {
  private constructor(
    readonly dimension: number,
    private readonly keys: string[],
    private readonly exact: DotProductKernel | null,
    private readonly coarse: Int8Rows | null,
    readonly skipped: number,
  ) {}

  static build(entries: Iterable<VectorEntry>, options: VectorIndexOptions = {}): VectorIndex {
    const createKernel = options.createKernel ?? createDotProductKernel;
    const list = Array.isArray(entries) ? (entries as VectorEntry[]) : [...entries];
    const dimension = list.find((entry) => entry.vector.length > 0)?.vector.length ?? 0;
    const rows: Array<{ vector: Float32Array; norm: number }> = [];
    const keys: string[] = [];
    for (const { key, vector } of list) {
      const norm = vector.length === dimension ? euclideanNorm(vector, dimension) : 0;
      if (norm === 0) continue;
      rows.push({ vector, norm });
      keys.push(key);
    }
    const exact = rows.length > 0 ? createKernel(rows.length, dimension) : null;
    if (exact) {
      rows.forEach(({ vector, norm }, row) => {
        const offset = row * exact.width;
        for (let index = 0; index < dimension; index += 1) exact.matrix[offset + index] = vector[index] / norm;
      });
    }
    const prescan = exact && rows.length >= (options.minRowsForPrescan ?? 1024) && WasmInt8DotProductKernel.isSupported();
    const coarse = prescan ? quantizeRows(exact, rows.length, dimension) : null;
    return new VectorIndex(dimension, keys, exact, coarse, list.length - rows.length);
  }

  get size(): number {
    return this.keys.length;
  }

  /**
   * Rows whose cosine similarity with `query` is strictly above `minScore`, best first, at most
   * `limit`; ties by insertion order. A query of another dimension (or a zero vector) matches nothing.
   */
  search(query: ArrayLike<number>, minScore: number, limit: number): Array<{ key: string; score: number }> {
    const { exact, dimension } = this;
    if (!exact || limit <= 0 || query.length !== dimension) return [];
    const norm = euclideanNorm(query, dimension);
    if (norm === 0) return [];
    for (let index = 0; index < dimension; index += 1) exact.query[index] = query[index] / norm;
    const collector = this.coarse ? this.prescanned(this.coarse, exact, minScore, limit) : null;
    return (collector ?? this.fullScan(exact, minScore, limit)).result().map(({ item, score }) => ({ key: this.keys[item], score: Math.min(1, score) }));
  }

  private fullScan(exact: DotProductKernel, minScore: number, limit: number): TopKCollector {
    exact.run();
    const scores = exact.scores;
    const collector = new TopKCollector(limit);
    for (let row = 0; row < scores.length; row += 1) {
      const score = scores[row];
      if (score > minScore && score > collector.threshold) collector.offer(row, score);
    }
    return collector;
  }

  /** The exact top-k from the int8 pre-scan and exact rescoring of the rows it cannot rule out; null when too many remain. */
  private prescanned(coarse: Int8Rows, exact: DotProductKernel, minScore: number, limit: number): TopKCollector | null {
    const { dimension } = this;
    const { scale: queryScale, residual: queryResidual, quantizedNorm } = quantize(exact.query, 0, dimension, coarse.kernel.query, 0);
    coarse.kernel.run();
    const dots = coarse.kernel.scores;
    const rows = dots.length;
    const lowerBounds = new TopKCollector(limit);
    const candidates: number[] = [];
    const uppers: number[] = [];
    for (let row = 0; row < rows; row += 1) {
      const approximate = queryScale * coarse.scales[row] * dots[row];
      const bound = quantizedNorm * coarse.residuals[row] + queryResidual + ROUNDING_MARGIN;
      const upper = approximate + bound;
      if (upper <= minScore) continue;
      lowerBounds.offer(row, approximate - bound);
      candidates.push(row);
      uppers.push(upper);
    }
    const kthLowerBound = lowerBounds.threshold;
    const survivors = candidates.filter((_, index) => uppers[index] >= kthLowerBound);
    if (survivors.length > rows / 8) return null;
    const collector = new TopKCollector(limit);
    const { matrix, query, width } = exact;
    for (const row of survivors) {
      const offset = row * width;
      let score = 0;
      for (let index = 0; index < dimension; index += 1) score += matrix[offset + index] * query[index];
      if (score > minScore) collector.offer(row, score);
    }
    return collector;
  }
}

/** int8 copies of the exact kernel's unit rows, each with its scale and quantization residual. */
function quantizeRows(exact: DotProductKernel, rows: number, dimension: number): Int8Rows {
  const kernel = new WasmInt8DotProductKernel(rows, Math.ceil(dimension / 16) * 16);
  const scales = new Float64Array(rows);
  const residuals = new Float64Array(rows);
  for (let row = 0; row < rows; row += 1) {
    const { scale, residual } = quantize(exact.matrix, row * exact.width, dimension, kernel.matrix, row * kernel.width);
    scales[row] = scale;
    residuals[row] = residual;
  }
  return { kernel, scales, residuals };
}

/**
 * Writes round(value / scale) for `dimension` values (scale = max |value| / 127) and returns the
 * scale, ‖x − scale·x8‖ (the residual) and ‖scale·x8‖, all computed from the float32 values stored.
 */
function quantize(
  source: Float32Array,
  from: number,
  dimension: number,
  target: Int8Array,
  to: number,
): { scale: number; residual: number; quantizedNorm: number } {
  let maxAbs = 0;
  for (let index = 0; index < dimension; index += 1) maxAbs = Math.max(maxAbs, Math.abs(source[from + index]));
  const scale = maxAbs / 127;
  let residual = 0;
  let quantizedNorm = 0;
  for (let index = 0; index < dimension; index += 1) {
    const value = source[from + index];
    const quantized = scale === 0 ? 0 : Math.round(value / scale);
    target[to + index] = quantized;
    const restored = quantized * scale;
    residual += (value - restored) * (value - restored);
    quantizedNorm += restored * restored;
  }
  return { scale, residual: Math.sqrt(residual), quantizedNorm: Math.sqrt(quantizedNorm) };
}

function euclideanNorm(vector: ArrayLike<number>, length: number): number {
  let sum = 0;
  for (let index = 0; index < length; index += 1) sum += vector[index] * vector[index];
  return Math.sqrt(sum);
}

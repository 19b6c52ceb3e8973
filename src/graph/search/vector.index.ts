import { DotProductKernel, paddedWidth } from './dot-product.kernel';
import { runAllSteps, Stepwise } from './stepwise';
import { createDotProductKernel } from './dot-product-kernel.factory';
import { TopKCollector } from './top-k.collector';
import { WasmInt8DotProductKernel } from './wasm-int8-dot-product.kernel';

export interface VectorEntry {
  key: string;
  vector: Float32Array;
  /** Rank among equal scores, lowest first (the store passes the node's row id); default: the entry's position in the build. */
  order?: number;
}

export interface VectorIndexOptions {
  /** A kernel with room for `rows` rows of `dimension` floats. */
  createKernel?: (rows: number, dimension: number) => DotProductKernel;
  /** Below this many rows the int8 pre-scan is not worth its memory: every query is a full float32 scan. */
  minRowsForPrescan?: number;
}

/** Covers float32 rounding between the bound's arithmetic and the exact scores (≪ any meaningful score gap). */
const ROUNDING_MARGIN = 1e-4;
const DEFAULT_MIN_ROWS_FOR_PRESCAN = 1024;
/** Keys asked for (`among`) scored one by one while they are at most this fraction of the rows: 1 / 8. */
const AMONG_SCAN_SHARE = 8;

/** Room left for added rows by a build (~3 %), so that an editing session does not grow the matrix. */
function builtCapacity(rows: number): number {
  return rows + Math.max(64, Math.ceil(rows / 32));
}

/** Room made when an added row finds the matrix full: a quarter more, at least 64 rows. */
function grownCapacity(capacity: number): number {
  return Math.max(capacity + 64, Math.ceil(capacity * 1.25));
}

/**
 * A VectorIndex as flat arrays (VectorIndex.pack): built in one thread, used in another without
 * normalizing or quantizing again. Row `r` is matrix[r × width .. (r + 1) × width), width as the
 * kernels pad the dimension.
 */
export interface PackedVectorIndex {
  dimension: number;
  /** Per row: its key. */
  keys: string[];
  orders: Float64Array;
  /** The unit rows, float32, `paddedWidth(dimension)` floats each. */
  matrix: Float32Array;
  /** The int8 copy of the rows (16-byte aligned width), with each row's scale and quantization residual; null below the pre-scan size. */
  coarse: { matrix: Int8Array; width: number; scales: Float64Array; residuals: Float64Array } | null;
  skippedKeys: string[];
  mixedDimensions: boolean;
}

/** The rows quantized to int8 (one scale per row) and how far each quantized row is from the exact one. */
interface Int8Rows {
  kernel: WasmInt8DotProductKernel;
  scales: Float64Array;
  residuals: Float64Array;
}

/**
 * EXACT cosine search over vectors of ONE embedding model. Rows are normalized once into a float32
 * matrix (rows × dimension, padded) scanned by a WebAssembly SIMD kernel. On large indexes a query first
 * scans an int8 copy of the matrix (a quarter of the memory traffic, which is what bounds the scan),
 * with a proven error bound per row: |q·x − q̂·x̂| ≤ ‖q̂‖·‖x − x̂‖ + ‖q − q̂‖. Only rows whose upper bound
 * can reach the result (above `minScore` and above the k-th best lower bound) are scored exactly, by
 * the same kernel, so the answer (scores included) is the full scan's; when too many rows qualify,
 * the full float32 scan runs instead. Entries whose dimension differs from the first one's, or whose
 * norm is zero, are left out (`skipped`).
 *
 * Built once, then kept current entry by entry (`set`, `remove`): a set row is rewritten in place (normalized, its int8
 * copy and error bound recomputed), a new one takes the next free row (a build leaves ~3 % of room; the matrix grows by
 * a quarter when full), a removed one gets the last row moved into its place. Equal scores rank by `order`, not by row,
 * so after any sequence of changes the index answers exactly as a fresh build over the same entries would.
 */
export class VectorIndex {
  private readonly slotByKey = new Map<string, number>();

  private constructor(
    /** The first entry's (0 until an entry with a length comes): every other row must have it. */
    private dimensionOfRows: number,
    /** Per row: its key; `keys.length` is the number of rows in use. */
    private readonly keys: string[],
    /** Per row: its rank among equal scores. */
    private orders: Float64Array,
    private exact: DotProductKernel | null,
    private coarse: Int8Rows | null,
    private readonly skippedKeys: Set<string>,
    /** Built from vectors of several dimensions: which one wins depends on the first entry, so only a rebuild stays exact. */
    private readonly mixedDimensions: boolean,
    private readonly options: Required<VectorIndexOptions>,
  ) {
    keys.forEach((key, row) => this.slotByKey.set(key, row));
  }

  /**
   * What `build(entries).pack()` gives, without kernels: the unit rows and their int8 copy written
   * straight into arrays of their own (no WebAssembly memory, which never shrinks, and no copy):
   * the index build thread's way.
   */
  static packEntries(
    entries: Iterable<VectorEntry>,
    minRowsForPrescan = DEFAULT_MIN_ROWS_FOR_PRESCAN,
  ): PackedVectorIndex {
    const { dimension, rows, keys, skipped, mixedDimensions } = unitRowsOf(entries);
    const width = paddedWidth(dimension);
    const matrix = new Float32Array(rows.length * width);
    const orders = new Float64Array(rows.length);
    rows.forEach(({ vector, norm, order }, row) => {
      for (let index = 0; index < dimension; index += 1) matrix[row * width + index] = vector[index] / norm;
      orders[row] = order;
    });
    let coarse: PackedVectorIndex['coarse'] = null;
    if (rows.length > 0 && rows.length >= minRowsForPrescan && WasmInt8DotProductKernel.isSupported()) {
      const coarseWidth = int8Width(dimension);
      const quantized = new Int8Array(rows.length * coarseWidth);
      const scales = new Float64Array(rows.length);
      const residuals = new Float64Array(rows.length);
      for (let row = 0; row < rows.length; row += 1) {
        const { scale, residual } = quantize(matrix, row * width, dimension, quantized, row * coarseWidth);
        scales[row] = scale;
        residuals[row] = residual;
      }
      coarse = { matrix: quantized, width: coarseWidth, scales, residuals };
    }
    return { dimension, keys, orders, matrix, coarse, skippedKeys: [...skipped], mixedDimensions };
  }

  /** Keys are unique. */
  static build(entries: Iterable<VectorEntry>, options: VectorIndexOptions = {}): VectorIndex {
    const resolved: Required<VectorIndexOptions> = {
      createKernel: options.createKernel ?? createDotProductKernel,
      minRowsForPrescan: options.minRowsForPrescan ?? DEFAULT_MIN_ROWS_FOR_PRESCAN,
    };
    const { dimension, rows, keys, skipped, mixedDimensions } = unitRowsOf(entries);
    const capacity = builtCapacity(rows.length);
    const exact = rows.length > 0 ? resolved.createKernel(capacity, dimension) : null;
    const orders = new Float64Array(capacity);
    if (exact) {
      rows.forEach(({ vector, norm, order }, row) => {
        writeUnitRow(exact, row, vector, norm, dimension);
        orders[row] = order;
      });
    }
    const prescan = exact && rows.length >= resolved.minRowsForPrescan && WasmInt8DotProductKernel.isSupported();
    const coarse = prescan ? quantizeRows(exact, rows.length, capacity, dimension) : null;
    return new VectorIndex(dimension, keys, orders, exact, coarse, skipped, mixedDimensions, resolved);
  }

  /**
   * The index `packed` was made from, answering exactly as it did (scores to the bit: the same unit
   * rows in the same kernels). Copies the rows into kernels of its own, with the room a build leaves.
   */
  static fromPacked(packed: PackedVectorIndex, options: VectorIndexOptions = {}): VectorIndex {
    return runAllSteps(VectorIndex.unpacking(packed, options));
  }

  /** fromPacked in steps (see Stepwise): rows are copied UNPACK_ROWS at a time. */
  static *unpacking(packed: PackedVectorIndex, options: VectorIndexOptions = {}): Stepwise<VectorIndex> {
    const resolved: Required<VectorIndexOptions> = {
      createKernel: options.createKernel ?? createDotProductKernel,
      minRowsForPrescan: options.minRowsForPrescan ?? DEFAULT_MIN_ROWS_FOR_PRESCAN,
    };
    const rows = packed.keys.length;
    const capacity = builtCapacity(rows);
    const exact = rows > 0 ? resolved.createKernel(capacity, packed.dimension) : null;
    if (exact) {
      if (packed.matrix.length !== rows * exact.width) throw new Error('Packed vector rows do not fit the kernel');
      yield* copyInSteps(packed.matrix, exact.matrix, exact.width);
    }
    const orders = new Float64Array(capacity);
    orders.set(packed.orders);
    let coarse: Int8Rows | null = null;
    if (exact && packed.coarse && WasmInt8DotProductKernel.isSupported()) {
      const kernel = new WasmInt8DotProductKernel(capacity, packed.coarse.width);
      yield* copyInSteps(packed.coarse.matrix, kernel.matrix, packed.coarse.width);
      const scales = new Float64Array(capacity);
      scales.set(packed.coarse.scales);
      const residuals = new Float64Array(capacity);
      residuals.set(packed.coarse.residuals);
      coarse = { kernel, scales, residuals };
    } else if (exact && rows >= resolved.minRowsForPrescan && WasmInt8DotProductKernel.isSupported()) {
      coarse = quantizeRows(exact, rows, capacity, packed.dimension);
    }
    return new VectorIndex(
      packed.dimension,
      packed.keys.slice(),
      orders,
      exact,
      coarse,
      new Set(packed.skippedKeys),
      packed.mixedDimensions,
      resolved,
    );
  }

  /** The index as flat arrays of its own (see PackedVectorIndex); this index stays as it was. */
  pack(): PackedVectorIndex {
    const rows = this.size;
    const { exact, coarse } = this;
    return {
      dimension: this.dimensionOfRows,
      keys: this.keys.slice(),
      orders: this.orders.slice(0, rows),
      matrix: exact ? exact.matrix.slice(0, rows * exact.width) : new Float32Array(0),
      coarse: coarse
        ? {
            matrix: coarse.kernel.matrix.slice(0, rows * coarse.kernel.width),
            width: coarse.kernel.width,
            scales: coarse.scales.slice(0, rows),
            residuals: coarse.residuals.slice(0, rows),
          }
        : null,
      skippedKeys: [...this.skippedKeys],
      mixedDimensions: this.mixedDimensions,
    };
  }

  get size(): number {
    return this.keys.length;
  }

  /** Entries left out: a zero norm, or another dimension than the index's. */
  get skipped(): number {
    return this.skippedKeys.size;
  }

  get dimension(): number {
    return this.dimensionOfRows;
  }

  /** False when built from vectors of several dimensions: which one won depends on the first entry, so only a rebuild stays exact. */
  get updatable(): boolean {
    return !this.mixedDimensions;
  }

  /**
   * Adds or replaces `key`'s vector. A zero vector takes it out (skipped, as a build would). An index
   * with no dimension yet (built empty) takes the first one it is given. False, changing nothing,
   * when the index is not `updatable` or the vector has another dimension: rebuild.
   */
  set(key: string, vector: Float32Array, order: number): boolean {
    if (this.mixedDimensions) return false;
    if (vector.length > 0 && this.dimensionOfRows > 0 && vector.length !== this.dimensionOfRows) return false;
    if (this.dimensionOfRows === 0) this.dimensionOfRows = vector.length;
    const dimension = this.dimensionOfRows;
    const norm = vector.length === 0 ? 0 : euclideanNorm(vector, dimension);
    if (norm === 0) {
      this.remove(key);
      this.skippedKeys.add(key);
      return true;
    }
    const exact = this.exact ?? this.createFirstKernel();
    this.skippedKeys.delete(key);
    let row = this.slotByKey.get(key);
    if (row === undefined) {
      row = this.keys.length;
      if (row === exact.capacity) this.grow();
      this.keys.push(key);
      this.slotByKey.set(key, row);
    }
    this.orders[row] = order;
    this.writeRow(row, vector, norm);
    return true;
  }

  /** The kernel of an index built without rows, once its first row comes (with the room a build leaves). */
  private createFirstKernel(): DotProductKernel {
    const capacity = builtCapacity(0);
    const exact = this.options.createKernel(capacity, this.dimensionOfRows);
    this.exact = exact;
    this.orders = new Float64Array(capacity);
    return exact;
  }

  /** Takes `key` out (the last row moves into its place); nothing when it is not indexed. */
  remove(key: string): void {
    this.skippedKeys.delete(key);
    const row = this.slotByKey.get(key);
    if (row === undefined) return;
    this.slotByKey.delete(key);
    const last = this.keys.length - 1;
    if (row !== last) this.moveRow(last, row);
    this.keys.pop();
  }

  /**
   * Rows whose cosine similarity with `query` is strictly above `minScore`, best first, at most
   * `limit`; ties by order. A query of another dimension (or a zero vector) matches nothing. With
   * `among`, only those keys' rows (a sheet of the graph): scored one by one when they are few, else
   * by a scan that keeps only them; the same scores either way.
   */
  search(
    query: ArrayLike<number>,
    minScore: number,
    limit: number,
    among?: ReadonlySet<string>,
  ): Array<{ key: string; score: number }> {
    const { exact, dimension } = this;
    if (!exact || this.size === 0 || limit <= 0 || query.length !== dimension) return [];
    const norm = euclideanNorm(query, dimension);
    if (norm === 0) return [];
    for (let index = 0; index < dimension; index += 1) exact.query[index] = query[index] / norm;
    let collector: TopKCollector | null;
    if (among && among.size <= this.size / AMONG_SCAN_SHARE)
      collector = this.scoredOneByOne(exact, among, minScore, limit);
    else {
      const accept = among ? (row: number) => among.has(this.keys[row]) : null;
      collector = this.coarse && !accept ? this.prescanned(this.coarse, exact, minScore, limit) : null;
      collector ??= this.fullScan(exact, minScore, limit, accept);
    }
    return collector.result().map(({ item, score }) => ({ key: this.keys[item], score: Math.min(1, score) }));
  }

  /** The rows of `keys` only, each scored by the kernel (to the bit what a scan gives it). */
  private scoredOneByOne(
    exact: DotProductKernel,
    keys: ReadonlySet<string>,
    minScore: number,
    limit: number,
  ): TopKCollector {
    const collector = new TopKCollector(limit, this.orders);
    for (const key of keys) {
      const row = this.slotByKey.get(key);
      if (row === undefined) continue;
      const score = exact.scoreRow(row);
      if (score > minScore) collector.offer(row, score);
    }
    return collector;
  }

  private fullScan(
    exact: DotProductKernel,
    minScore: number,
    limit: number,
    accept: ((row: number) => boolean) | null,
  ): TopKCollector {
    const rows = this.size;
    exact.run(rows);
    const scores = exact.scores;
    const collector = new TopKCollector(limit, this.orders);
    for (let row = 0; row < rows; row += 1) {
      const score = scores[row];
      // At the threshold a row may still win the tie: rows are not in order once the index was updated.
      if (score > minScore && score >= collector.threshold && (!accept || accept(row))) collector.offer(row, score);
    }
    return collector;
  }

  /** The exact top-k from the int8 pre-scan and exact rescoring of the rows it cannot rule out; null when too many remain. */
  private prescanned(coarse: Int8Rows, exact: DotProductKernel, minScore: number, limit: number): TopKCollector | null {
    const { dimension } = this;
    const rows = this.size;
    const {
      scale: queryScale,
      residual: queryResidual,
      quantizedNorm,
    } = quantize(exact.query, 0, dimension, coarse.kernel.query, 0);
    coarse.kernel.run(rows);
    const dots = coarse.kernel.scores;
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
    const collector = new TopKCollector(limit, this.orders);
    for (const row of survivors) {
      const score = exact.scoreRow(row);
      if (score > minScore) collector.offer(row, score);
    }
    return collector;
  }

  private writeRow(row: number, vector: Float32Array, norm: number): void {
    const exact = this.exact as DotProductKernel;
    writeUnitRow(exact, row, vector, norm, this.dimension);
    const { coarse } = this;
    if (!coarse) return;
    const { scale, residual } = quantize(
      exact.matrix,
      row * exact.width,
      this.dimension,
      coarse.kernel.matrix,
      row * coarse.kernel.width,
    );
    coarse.scales[row] = scale;
    coarse.residuals[row] = residual;
  }

  private moveRow(from: number, to: number): void {
    const exact = this.exact as DotProductKernel;
    exact.matrix.copyWithin(to * exact.width, from * exact.width, (from + 1) * exact.width);
    const { coarse } = this;
    if (coarse) {
      const width = coarse.kernel.width;
      coarse.kernel.matrix.copyWithin(to * width, from * width, (from + 1) * width);
      coarse.scales[to] = coarse.scales[from];
      coarse.residuals[to] = coarse.residuals[from];
    }
    this.keys[to] = this.keys[from];
    this.orders[to] = this.orders[from];
    this.slotByKey.set(this.keys[to], to);
  }

  /** A larger matrix (and int8 copy) holding the rows in use; the int8 copy appears once the index is large enough for it. */
  private grow(): void {
    const exact = this.exact as DotProductKernel;
    const rows = this.size;
    const capacity = grownCapacity(exact.capacity);
    const grown = this.options.createKernel(capacity, this.dimension);
    grown.matrix.set(exact.matrix.subarray(0, rows * exact.width));
    const orders = new Float64Array(capacity);
    orders.set(this.orders.subarray(0, rows));
    const { coarse } = this;
    if (coarse) {
      const kernel = new WasmInt8DotProductKernel(capacity, coarse.kernel.width);
      kernel.matrix.set(coarse.kernel.matrix.subarray(0, rows * coarse.kernel.width));
      const scales = new Float64Array(capacity);
      scales.set(coarse.scales.subarray(0, rows));
      const residuals = new Float64Array(capacity);
      residuals.set(coarse.residuals.subarray(0, rows));
      this.coarse = { kernel, scales, residuals };
    } else if (rows + 1 >= this.options.minRowsForPrescan && WasmInt8DotProductKernel.isSupported()) {
      this.coarse = quantizeRows(grown, rows, capacity, this.dimension);
    }
    this.exact = grown;
    this.orders = orders;
  }
}

/** The entries a build keeps (a norm, the dimension of the first one with a length) with their norms; the others skipped. */
function unitRowsOf(entries: Iterable<VectorEntry>): {
  dimension: number;
  rows: Array<{ vector: Float32Array; norm: number; order: number }>;
  keys: string[];
  skipped: Set<string>;
  mixedDimensions: boolean;
} {
  const list = Array.isArray(entries) ? (entries as VectorEntry[]) : [...entries];
  const dimension = list.find((entry) => entry.vector.length > 0)?.vector.length ?? 0;
  const rows: Array<{ vector: Float32Array; norm: number; order: number }> = [];
  const keys: string[] = [];
  const skipped = new Set<string>();
  let mixedDimensions = false;
  list.forEach(({ key, vector, order }, position) => {
    if (vector.length > 0 && vector.length !== dimension) mixedDimensions = true;
    const norm = vector.length === dimension ? euclideanNorm(vector, dimension) : 0;
    if (norm === 0) {
      skipped.add(key);
      return;
    }
    rows.push({ vector, norm, order: order ?? position });
    keys.push(key);
  });
  return { dimension, rows, keys, skipped, mixedDimensions };
}

/** The int8 copy's row width: the dimension padded to 16 bytes (the SIMD kernel's lanes). */
function int8Width(dimension: number): number {
  return Math.ceil(dimension / 16) * 16;
}

/** Rows copied between two steps of VectorIndex.unpacking (a few hundred kilobytes). */
const UNPACK_ROWS = 256;

/** Copies `source` to the start of `target`, UNPACK_ROWS rows of `width` values at a time, yielding between them. */
function* copyInSteps(
  source: Float32Array | Int8Array,
  target: Float32Array | Int8Array,
  width: number,
): Stepwise<void> {
  const step = UNPACK_ROWS * width;
  for (let offset = 0; offset < source.length; offset += step) {
    target.set(source.subarray(offset, offset + step) as never, offset);
    yield;
  }
}

function writeUnitRow(
  exact: DotProductKernel,
  row: number,
  vector: Float32Array,
  norm: number,
  dimension: number,
): void {
  const offset = row * exact.width;
  for (let index = 0; index < dimension; index += 1) exact.matrix[offset + index] = vector[index] / norm;
}

/** int8 copies of the exact kernel's first `rows` unit rows (room for `capacity`), each with its scale and quantization residual. */
function quantizeRows(exact: DotProductKernel, rows: number, capacity: number, dimension: number): Int8Rows {
  const kernel = new WasmInt8DotProductKernel(capacity, int8Width(dimension));
  const scales = new Float64Array(capacity);
  const residuals = new Float64Array(capacity);
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

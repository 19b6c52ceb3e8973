/**
 * Dot products of one query against the rows of a matrix, in place: the caller fills `matrix`
 * (`capacity` rows × `width` floats, row-major) and `query` (`width` floats) per search, calls
 * `run(rows)`, then reads `scores` (one per row). `width` is the dimension padded to a multiple of 8
 * (padding stays zero), which the SIMD kernel needs.
 */
export interface DotProductKernel {
  readonly capacity: number;
  readonly width: number;
  readonly matrix: Float32Array;
  readonly query: Float32Array;
  readonly scores: Float32Array;
  /** Scores the first `rows` rows (default: all `capacity`). */
  run(rows?: number): void;
  /** Scores one row, to the bit the value `run` gives it (the int8 pre-scan's exact rescoring relies on it). */
  scoreRow(row: number): number;
}

export function paddedWidth(dimension: number): number {
  return Math.ceil(dimension / 8) * 8;
}

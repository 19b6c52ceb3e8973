import type { DotProductKernel } from './dot-product.kernel';

/** Plain JavaScript dot products (fallback where WebAssembly SIMD is missing, and the reference in tests). */
export class JsDotProductKernel implements DotProductKernel {
  readonly matrix: Float32Array;
  readonly query: Float32Array;
  readonly scores: Float32Array;

  constructor(
    readonly capacity: number,
    readonly width: number,
  ) {
    this.matrix = new Float32Array(capacity * width);
    this.query = new Float32Array(width);
    this.scores = new Float32Array(capacity);
  }

  run(rows = this.capacity): void {
    for (let row = 0; row < rows; row += 1) this.scoreRow(row);
  }

  scoreRow(row: number): number {
    const { matrix, query, width } = this;
    const offset = row * width;
    // Four independent sums let the CPU overlap the multiply-adds (width is a multiple of 8).
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let index = 0; index < width; index += 4) {
      s0 += matrix[offset + index] * query[index];
      s1 += matrix[offset + index + 1] * query[index + 1];
      s2 += matrix[offset + index + 2] * query[index + 2];
      s3 += matrix[offset + index + 3] * query[index + 3];
    }
    this.scores[row] = s0 + s1 + s2 + s3;
    return this.scores[row];
  }
}

import { JsDotProductKernel } from './js-dot-product.kernel';
import { WasmDotProductKernel } from './wasm-dot-product.kernel';

/**
 * Dot products of one query against every row of a matrix, in place: the caller fills `matrix`
 * (rows × `width` floats, row-major) once and `query` (`width` floats) per search, calls `run()`,
 * then reads `scores` (one per row). `width` is the dimension padded to a multiple of 8 (padding
 * stays zero), which the SIMD kernel needs.
 */
export interface DotProductKernel {
  readonly width: number;
  readonly matrix: Float32Array;
  readonly query: Float32Array;
  readonly scores: Float32Array;
  run(): void;
}

export function paddedWidth(dimension: number): number {
  return Math.ceil(dimension / 8) * 8;
}

/** The WebAssembly SIMD kernel where the runtime has it (Node ≥ 16), else the plain JavaScript one. */
export function createDotProductKernel(rows: number, dimension: number): DotProductKernel {
  const width = paddedWidth(dimension);
  return WasmDotProductKernel.isSupported() ? new WasmDotProductKernel(rows, width) : new JsDotProductKernel(rows, width);
}

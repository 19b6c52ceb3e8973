import { DotProductKernel, paddedWidth } from './dot-product.kernel';
import { JsDotProductKernel } from './js-dot-product.kernel';
import { WasmDotProductKernel } from './wasm-dot-product.kernel';

/** The WebAssembly SIMD kernel where the runtime has it (Node ≥ 16), else the plain JavaScript one. */
export function createDotProductKernel(rows: number, dimension: number): DotProductKernel {
  const width = paddedWidth(dimension);
  return WasmDotProductKernel.isSupported()
    ? new WasmDotProductKernel(rows, width)
    : new JsDotProductKernel(rows, width);
}

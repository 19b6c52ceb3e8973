import { paddedWidth } from './dot-product.kernel';
import { createDotProductKernel } from './dot-product-kernel.factory';
import { JsDotProductKernel } from './js-dot-product.kernel';
import { WasmDotProductKernel } from './wasm-dot-product.kernel';

describe(WasmDotProductKernel.name, () => {
  it('computes the same dot products as the JavaScript kernel', () => {
    const rows = 37;
    const width = 24;
    const simd = new WasmDotProductKernel(rows, width);
    const reference = new JsDotProductKernel(rows, width);
    for (let index = 0; index < rows * width; index += 1)
      simd.matrix[index] = reference.matrix[index] = Math.sin(index * 0.37);
    for (let index = 0; index < width; index += 1) simd.query[index] = reference.query[index] = Math.cos(index * 1.3);
    simd.run();
    reference.run();
    [...simd.scores].forEach((score, row) => expect(score).toBeCloseTo(reference.scores[row], 4));
    expect(simd.scores.some((score) => score !== 0)).toBe(true);
  });

  it('can run again with another query', () => {
    const kernel = new WasmDotProductKernel(2, 8);
    kernel.matrix.set([1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    kernel.query.set([1, 0, 0, 0, 0, 0, 0, 0]);
    kernel.run();
    expect([...kernel.scores]).toEqual([1, 0]);
    kernel.query.set([0, 2, 0, 0, 0, 0, 0, 0]);
    kernel.run();
    expect([...kernel.scores]).toEqual([0, 2]);
  });

  it.each([
    ['WebAssembly SIMD', (rows: number, width: number) => new WasmDotProductKernel(rows, width)],
    ['JavaScript', (rows: number, width: number) => new JsDotProductKernel(rows, width)],
  ])('scores the first rows only when told, and one row to the bit of a full run (%s)', (_name, create) => {
    const kernel = create(6, 16);
    for (let index = 0; index < 6 * 16; index += 1) kernel.matrix[index] = Math.sin(index * 0.71);
    for (let index = 0; index < 16; index += 1) kernel.query[index] = Math.cos(index * 0.29);
    kernel.run(4);
    expect(kernel.scores[4]).toBe(0);
    expect(kernel.scores[5]).toBe(0);
    kernel.run();
    const full = [...kernel.scores];
    kernel.scores.fill(0);
    expect(full.map((_, row) => kernel.scoreRow(row))).toEqual(full);
    expect(kernel.capacity).toBe(6);
  });

  it('refuses a width that is not a positive multiple of 8', () => {
    expect(() => new WasmDotProductKernel(1, 12)).toThrow(/multiple of 8/);
  });

  it('is what createDotProductKernel picks, with the width padded to a multiple of 8', () => {
    const kernel = createDotProductKernel(3, 13);
    expect(kernel).toBeInstanceOf(WasmDotProductKernel);
    expect(kernel.width).toBe(paddedWidth(13));
    expect(paddedWidth(13)).toBe(16);
    expect(paddedWidth(384)).toBe(384);
  });
});

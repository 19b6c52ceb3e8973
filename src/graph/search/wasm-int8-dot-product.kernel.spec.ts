import { WasmInt8DotProductKernel } from './wasm-int8-dot-product.kernel';

describe(WasmInt8DotProductKernel.name, () => {
  it('computes exact int32 dot products of int8 rows, including the extreme values', () => {
    expect(WasmInt8DotProductKernel.isSupported()).toBe(true);
    const rows = 9;
    const width = 48;
    const kernel = new WasmInt8DotProductKernel(rows, width);
    for (let index = 0; index < rows * width; index += 1)
      kernel.matrix[index] = index % 7 === 0 ? -127 : Math.round(Math.sin(index) * 127);
    for (let index = 0; index < width; index += 1)
      kernel.query[index] = index % 5 === 0 ? 127 : Math.round(Math.cos(index * 3) * 127);
    kernel.run();
    const expected = Array.from({ length: rows }, (_, row) => {
      let sum = 0;
      for (let index = 0; index < width; index += 1) sum += kernel.matrix[row * width + index] * kernel.query[index];
      return sum;
    });
    expect([...kernel.scores]).toEqual(expected);
  });

  it('refuses a width that is not a positive multiple of 16', () => {
    expect(() => new WasmInt8DotProductKernel(1, 24)).toThrow(/multiple of 16/);
  });
});

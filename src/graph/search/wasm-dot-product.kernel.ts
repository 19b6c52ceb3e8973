import type { DotProductKernel } from './dot-product.kernel';
import { at, instantiateKernel, KernelInstance, lazyKernelModule, OP, PARAM } from './wasm-kernel.module';

const { ROW, QUERY, ROWS, ROW_BYTES, OUT } = PARAM;
const [Q, ROW_END, ACC0, ACC1] = [5, 6, 7, 8];
const {
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  I32_CONST,
  I32_ADD,
  I32_SUB,
  I32_LT_U,
  I32_EQZ,
  BR_IF,
  BLOCK,
  LOOP,
  END,
  VOID,
} = OP;

/**
 * float32 dot products with 128-bit SIMD (4 lanes, two accumulators), several times faster than the
 * JavaScript loop, which V8 does not vectorize. The WebAssembly text below is the source and BODY its
 * transcription, line by line:
 *
 *   (func (export "dots") (param $row i32) (param $query i32) (param $rows i32) (param $rowBytes i32) (param $out i32)
 *     (local $q i32) (local $rowEnd i32) (local $acc0 v128) (local $acc1 v128)
 *     (block $done
 *       (br_if $done (i32.eqz (local.get $rows)))
 *       (loop $eachRow
 *         (local.set $acc0 (v128.const i32x4 0 0 0 0)) (local.set $acc1 (v128.const i32x4 0 0 0 0))
 *         (local.set $q (local.get $query))
 *         (local.set $rowEnd (i32.add (local.get $row) (local.get $rowBytes)))
 *         (loop $eachEight   ;; 8 floats per turn: rowBytes is a multiple of 32
 *           (local.set $acc0 (f32x4.add (local.get $acc0) (f32x4.mul (v128.load (local.get $row)) (v128.load (local.get $q)))))
 *           (local.set $acc1 (f32x4.add (local.get $acc1) (f32x4.mul (v128.load offset=16 (local.get $row)) (v128.load offset=16 (local.get $q)))))
 *           (local.set $row (i32.add (local.get $row) (i32.const 32)))
 *           (local.set $q (i32.add (local.get $q) (i32.const 32)))
 *           (br_if $eachEight (i32.lt_u (local.get $row) (local.get $rowEnd))))
 *         (local.set $acc0 (f32x4.add (local.get $acc0) (local.get $acc1)))
 *         (f32.store (local.get $out) (sum of the 4 lanes of $acc0))
 *         (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *         (br_if $eachRow (local.tee $rows (i32.sub (local.get $rows) (i32.const 1)))))))
 */
const BODY = [
  0x02,
  0x02,
  OP.TYPE_I32,
  0x02,
  OP.TYPE_V128, // locals: 2 × i32 ($q, $rowEnd), 2 × v128 ($acc0, $acc1)
  BLOCK,
  VOID,
  LOCAL_GET,
  ROWS,
  I32_EQZ,
  BR_IF,
  0,
  LOOP,
  VOID,
  ...OP.V128_CONST_ZERO,
  LOCAL_SET,
  ACC0,
  ...OP.V128_CONST_ZERO,
  LOCAL_SET,
  ACC1,
  LOCAL_GET,
  QUERY,
  LOCAL_SET,
  Q,
  LOCAL_GET,
  ROW,
  LOCAL_GET,
  ROW_BYTES,
  I32_ADD,
  LOCAL_SET,
  ROW_END,
  LOOP,
  VOID,
  LOCAL_GET,
  ACC0,
  LOCAL_GET,
  ROW,
  ...OP.V128_LOAD,
  ...at(0),
  LOCAL_GET,
  Q,
  ...OP.V128_LOAD,
  ...at(0),
  ...OP.F32X4_MUL,
  ...OP.F32X4_ADD,
  LOCAL_SET,
  ACC0,
  LOCAL_GET,
  ACC1,
  LOCAL_GET,
  ROW,
  ...OP.V128_LOAD,
  ...at(16),
  LOCAL_GET,
  Q,
  ...OP.V128_LOAD,
  ...at(16),
  ...OP.F32X4_MUL,
  ...OP.F32X4_ADD,
  LOCAL_SET,
  ACC1,
  LOCAL_GET,
  ROW,
  I32_CONST,
  32,
  I32_ADD,
  LOCAL_SET,
  ROW,
  LOCAL_GET,
  Q,
  I32_CONST,
  32,
  I32_ADD,
  LOCAL_SET,
  Q,
  LOCAL_GET,
  ROW,
  LOCAL_GET,
  ROW_END,
  I32_LT_U,
  BR_IF,
  0,
  END,
  LOCAL_GET,
  ACC0,
  LOCAL_GET,
  ACC1,
  ...OP.F32X4_ADD,
  LOCAL_SET,
  ACC0,
  LOCAL_GET,
  OUT,
  LOCAL_GET,
  ACC0,
  ...OP.F32X4_EXTRACT_LANE,
  0,
  LOCAL_GET,
  ACC0,
  ...OP.F32X4_EXTRACT_LANE,
  1,
  OP.F32_ADD,
  LOCAL_GET,
  ACC0,
  ...OP.F32X4_EXTRACT_LANE,
  2,
  OP.F32_ADD,
  LOCAL_GET,
  ACC0,
  ...OP.F32X4_EXTRACT_LANE,
  3,
  OP.F32_ADD,
  OP.F32_STORE,
  ...at(0),
  LOCAL_GET,
  OUT,
  I32_CONST,
  4,
  I32_ADD,
  LOCAL_SET,
  OUT,
  LOCAL_GET,
  ROWS,
  I32_CONST,
  1,
  I32_SUB,
  LOCAL_TEE,
  ROWS,
  BR_IF,
  0,
  END,
  END,
  END,
];

const kernelModule = lazyKernelModule(BODY);

/**
 * float32 dot products in a WebAssembly memory of their own, laid out [matrix | query | scores];
 * freed with the instance by the GC.
 */
export class WasmDotProductKernel implements DotProductKernel {
  readonly matrix: Float32Array;
  readonly query: Float32Array;
  readonly scores: Float32Array;
  private readonly instance: KernelInstance;

  static isSupported(): boolean {
    return kernelModule() !== null;
  }

  constructor(
    readonly capacity: number,
    readonly width: number,
  ) {
    if (width % 8 !== 0 || width === 0)
      throw new Error(`WasmDotProductKernel needs a width that is a positive multiple of 8, got ${width}`);
    this.instance = instantiateKernel(kernelModule(), capacity, width * 4);
    const { buffer, queryOffset, scoresOffset } = this.instance;
    this.matrix = new Float32Array(buffer, 0, capacity * width);
    this.query = new Float32Array(buffer, queryOffset, width);
    this.scores = new Float32Array(buffer, scoresOffset, capacity);
  }

  run(rows = this.capacity): void {
    this.instance.run(0, rows);
  }

  scoreRow(row: number): number {
    this.instance.run(row, 1);
    return this.scores[row];
  }
}

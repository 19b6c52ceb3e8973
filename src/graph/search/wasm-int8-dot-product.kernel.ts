import { at, instantiateKernel, KernelInstance, lazyKernelModule, OP, PARAM } from './wasm-kernel.module';

const { ROW, QUERY, ROWS, ROW_BYTES, OUT } = PARAM;
const [Q, ROW_END, ACC, ROW_BYTES_V, QUERY_BYTES_V] = [5, 6, 7, 8, 9];
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
 * int8 × int8 → int32 dot products with 128-bit SIMD: 16 bytes per turn, widened to int16 and
 * multiplied-added pairwise (i32x4.dot_i16x8_s). A quarter of the memory traffic of float32, which
 * is what bounds the scan. No overflow: |sum| ≤ 127² × 2 × (width / 8) per lane, far below 2^31 for
 * any embedding width. The WebAssembly text below is the source and BODY its transcription, line by line:
 *
 *   (func (export "dots") (param $row i32) (param $query i32) (param $rows i32) (param $rowBytes i32) (param $out i32)
 *     (local $q i32) (local $rowEnd i32) (local $acc v128) (local $r v128) (local $x v128)
 *     (block $done
 *       (br_if $done (i32.eqz (local.get $rows)))
 *       (loop $eachRow
 *         (local.set $acc (v128.const i32x4 0 0 0 0))
 *         (local.set $q (local.get $query))
 *         (local.set $rowEnd (i32.add (local.get $row) (local.get $rowBytes)))
 *         (loop $eachSixteen   ;; rowBytes is a multiple of 16
 *           (local.set $r (v128.load (local.get $row)))
 *           (local.set $x (v128.load (local.get $q)))
 *           (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
 *             (i16x8.extend_low_i8x16_s (local.get $r)) (i16x8.extend_low_i8x16_s (local.get $x)))))
 *           (local.set $acc (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s
 *             (i16x8.extend_high_i8x16_s (local.get $r)) (i16x8.extend_high_i8x16_s (local.get $x)))))
 *           (local.set $row (i32.add (local.get $row) (i32.const 16)))
 *           (local.set $q (i32.add (local.get $q) (i32.const 16)))
 *           (br_if $eachSixteen (i32.lt_u (local.get $row) (local.get $rowEnd))))
 *         (i32.store (local.get $out) (sum of the 4 lanes of $acc))
 *         (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *         (br_if $eachRow (local.tee $rows (i32.sub (local.get $rows) (i32.const 1)))))))
 */
const BODY = [
  0x02,
  0x02,
  OP.TYPE_I32,
  0x03,
  OP.TYPE_V128, // locals: 2 × i32 ($q, $rowEnd), 3 × v128 ($acc, $r, $x)
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
  ACC,
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
  ROW,
  ...OP.V128_LOAD,
  ...at(0),
  LOCAL_SET,
  ROW_BYTES_V,
  LOCAL_GET,
  Q,
  ...OP.V128_LOAD,
  ...at(0),
  LOCAL_SET,
  QUERY_BYTES_V,
  LOCAL_GET,
  ACC,
  LOCAL_GET,
  ROW_BYTES_V,
  ...OP.I16X8_EXTEND_LOW_I8X16_S,
  LOCAL_GET,
  QUERY_BYTES_V,
  ...OP.I16X8_EXTEND_LOW_I8X16_S,
  ...OP.I32X4_DOT_I16X8_S,
  ...OP.I32X4_ADD,
  LOCAL_SET,
  ACC,
  LOCAL_GET,
  ACC,
  LOCAL_GET,
  ROW_BYTES_V,
  ...OP.I16X8_EXTEND_HIGH_I8X16_S,
  LOCAL_GET,
  QUERY_BYTES_V,
  ...OP.I16X8_EXTEND_HIGH_I8X16_S,
  ...OP.I32X4_DOT_I16X8_S,
  ...OP.I32X4_ADD,
  LOCAL_SET,
  ACC,
  LOCAL_GET,
  ROW,
  I32_CONST,
  16,
  I32_ADD,
  LOCAL_SET,
  ROW,
  LOCAL_GET,
  Q,
  I32_CONST,
  16,
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
  OUT,
  LOCAL_GET,
  ACC,
  ...OP.I32X4_EXTRACT_LANE,
  0,
  LOCAL_GET,
  ACC,
  ...OP.I32X4_EXTRACT_LANE,
  1,
  I32_ADD,
  LOCAL_GET,
  ACC,
  ...OP.I32X4_EXTRACT_LANE,
  2,
  I32_ADD,
  LOCAL_GET,
  ACC,
  ...OP.I32X4_EXTRACT_LANE,
  3,
  I32_ADD,
  OP.I32_STORE,
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
 * int8 dot products of one int8 query against int8 rows (rows × `width` bytes, `width` a multiple
 * of 16, padding zero), in a WebAssembly memory of their own laid out [matrix | query | scores].
 * Only built where WebAssembly SIMD exists (see isSupported).
 */
export class WasmInt8DotProductKernel {
  readonly matrix: Int8Array;
  readonly query: Int8Array;
  readonly scores: Int32Array;
  private readonly instance: KernelInstance;

  static isSupported(): boolean {
    return kernelModule() !== null;
  }

  constructor(
    readonly capacity: number,
    readonly width: number,
  ) {
    if (width % 16 !== 0 || width === 0)
      throw new Error(`WasmInt8DotProductKernel needs a width that is a positive multiple of 16, got ${width}`);
    this.instance = instantiateKernel(kernelModule(), capacity, width);
    const { buffer, queryOffset, scoresOffset } = this.instance;
    this.matrix = new Int8Array(buffer, 0, capacity * width);
    this.query = new Int8Array(buffer, queryOffset, width);
    this.scores = new Int32Array(buffer, scoresOffset, capacity);
  }

  /** Scores the first `rows` rows (default: all `capacity`). */
  run(rows = this.capacity): void {
    this.instance.run(0, rows);
  }
}

/**
 * The plumbing shared by the hand-assembled WebAssembly kernels of the vector scan: opcodes, the
 * module envelope, compilation and instantiation. Every kernel is ONE exported function
 * `dots(row, query, rows, rowBytes, out)` (five i32 pointers/counts, no result) over an imported
 * memory, so only its body differs. Encodings: https://webassembly.github.io/spec/core/binary/.
 * A kernel is changed in its WebAssembly text first, then in its transcription, line for line.
 */

const SIMD = 0xfd;
/** Opcodes the kernels use (SIMD ones are 0xfd + LEB128 index). */
export const OP = {
  BLOCK: 0x02,
  LOOP: 0x03,
  BR_IF: 0x0d,
  END: 0x0b,
  VOID: 0x40,
  LOCAL_GET: 0x20,
  LOCAL_SET: 0x21,
  LOCAL_TEE: 0x22,
  I32_CONST: 0x41,
  I32_EQZ: 0x45,
  I32_LT_U: 0x49,
  I32_ADD: 0x6a,
  I32_SUB: 0x6b,
  I32_STORE: 0x36,
  F32_ADD: 0x92,
  F32_STORE: 0x38,
  V128_LOAD: [SIMD, 0x00],
  V128_CONST_ZERO: [SIMD, 0x0c, ...new Array<number>(16).fill(0)],
  I32X4_EXTRACT_LANE: [SIMD, 0x1b],
  F32X4_EXTRACT_LANE: [SIMD, 0x1f],
  I16X8_EXTEND_LOW_I8X16_S: [SIMD, 0x87, 0x01],
  I16X8_EXTEND_HIGH_I8X16_S: [SIMD, 0x88, 0x01],
  I32X4_ADD: [SIMD, 0xae, 0x01],
  I32X4_DOT_I16X8_S: [SIMD, 0xba, 0x01],
  F32X4_ADD: [SIMD, 0xe4, 0x01],
  F32X4_MUL: [SIMD, 0xe6, 0x01],
  TYPE_I32: 0x7f,
  TYPE_V128: 0x7b,
} as const;

/** Parameter indexes of `dots`; a kernel's own locals follow from 5. */
export const PARAM = { ROW: 0, QUERY: 1, ROWS: 2, ROW_BYTES: 3, OUT: 4 } as const;

/** memarg of a load/store: alignment hint 2^2 (4-byte aligned, always true here), then the byte offset. */
export const at = (offset: number): number[] => [0x02, offset];

/** Unsigned LEB128, the encoding of every size in a module. */
function leb128(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    bytes.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return bytes;
}

const section = (id: number, content: number[]) => [id, ...leb128(content.length), ...content];
const name = (value: string) => [value.length, ...Buffer.from(value, 'ascii')];

/** A module importing `env.memory` and exporting `dots` with the given body (locals declaration included). */
function kernelModuleBytes(body: number[]): Uint8Array {
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00, // "\0asm", version 1
    ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]), // type: (i32 × 5) → ()
    ...section(2, [0x01, ...name('env'), ...name('memory'), 0x02, 0x00, 0x01]), // import env.memory, min 1 page
    ...section(3, [0x01, 0x00]), // one function of type 0
    ...section(7, [0x01, ...name('dots'), 0x00, 0x00]), // exported as "dots"
    ...section(10, [0x01, ...leb128(body.length), ...body]), // its code
  ]);
}

/** The slice of the WebAssembly JS API used here (the project's TypeScript libs do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}

const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
const PAGE_BYTES = 64 * 1024;

type DotsFunction = (row: number, query: number, rows: number, rowBytes: number, out: number) => void;

/** A compiled kernel, or null where the runtime lacks WebAssembly SIMD (callers fall back to JavaScript). */
function compileKernel(bytes: Uint8Array): object | null {
  return wasm?.validate(bytes) ? new wasm.Module(bytes) : null;
}

/** The kernel with this body, compiled on first call and kept (null where WebAssembly SIMD is missing). */
export function lazyKernelModule(body: number[]): () => object | null {
  let compiled: object | null | undefined;
  return () => (compiled === undefined ? (compiled = compileKernel(kernelModuleBytes(body))) : compiled);
}

/** One kernel instance and where its parts lie in its memory. */
export interface KernelInstance {
  buffer: ArrayBuffer;
  queryOffset: number;
  scoresOffset: number;
  /** `dots` over rows [from, from + count), each score (4 bytes) at its row's place in the scores. */
  run(from: number, count: number): void;
}

/**
 * An instance of `module` over a memory of its own laid out [matrix: rows × rowBytes | query: rowBytes |
 * scores: rows × 4 bytes]; `rowBytes` a multiple of 16 keeps every part aligned for v128 loads. The
 * memory never grows, so views on `buffer` stay valid.
 */
export function instantiateKernel(module: object | null, rows: number, rowBytes: number): KernelInstance {
  if (!wasm || !module) throw new Error('WebAssembly SIMD is not available');
  const queryOffset = rows * rowBytes;
  const scoresOffset = queryOffset + rowBytes;
  const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil((scoresOffset + rows * 4) / PAGE_BYTES)) });
  const instance = new wasm.Instance(module, { env: { memory } });
  const dots = instance.exports.dots as DotsFunction;
  return {
    buffer: memory.buffer,
    queryOffset,
    scoresOffset,
    run: (from, count) => dots(from * rowBytes, queryOffset, count, rowBytes, scoresOffset + from * 4),
  };
}

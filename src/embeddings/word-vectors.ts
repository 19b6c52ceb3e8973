import { readFileSync } from 'node:fs';

/** One word of a word-vector table, as the distiller writes it. */
export interface WordVectorEntry {
  word: string;
  /** Its rank in the source vocabulary by frequency (1 = most frequent): what SIF weights are estimated from. */
  rank: number;
  vector: ArrayLike<number>;
}

/** What the file says about itself (JSON after the magic bytes). */
export interface WordVectorsHeader {
  version: 1;
  dimension: number;
  count: number;
  /** Words in the source vocabulary (for frequency estimates from ranks). */
  sourceWords: number;
  /** Where the vectors come from (free text, for people). */
  source: string;
  /** Byte length of the word list. */
  wordsBytes: number;
  /** The unit direction shared by most word vectors (the first principal component of the frequent words). */
  commonDirection: number[];
}

const MAGIC = 'WVEC';
const FORMAT_VERSION = 1;
/** Words whose vectors define the common direction: the most frequent ones. */
const COMMON_DIRECTION_WORDS = 5000;
const POWER_ITERATIONS = 30;

/**
 * A table of static word vectors, read from the compact file the distiller writes
 * (`npm run ai:build-word-vectors`). Each vector is stored as int8 components of its unit direction
 * (magnitudes are not kept: only directions are averaged), which keeps 25,000 words of 100
 * dimensions under 3 MB.
 *
 * Layout: `WVEC`, u32 LE header length, the header (JSON, WordVectorsHeader), the words (UTF-8,
 * joined by `\n`, most frequent first), u32 LE rank of each word, then `count × dimension` int8
 * components.
 */
export class WordVectors {
  readonly dimension: number;
  readonly count: number;
  readonly sourceWords: number;
  readonly source: string;
  /** Unit vector; zero when the file has none. */
  readonly commonDirection: Float64Array;
  private readonly indexByWord = new Map<string, number>();
  private readonly ranks: Uint32Array;
  private readonly components: Int8Array;
  /** 1 / norm of each stored int8 vector: components × it is the unit vector. */
  private readonly inverseNorms: Float64Array;

  private constructor(header: WordVectorsHeader, words: string[], ranks: Uint32Array, components: Int8Array) {
    this.dimension = header.dimension;
    this.count = header.count;
    this.sourceWords = header.sourceWords;
    this.source = header.source;
    this.ranks = ranks;
    this.components = components;
    words.forEach((word, index) => this.indexByWord.set(word, index));
    this.inverseNorms = new Float64Array(this.count);
    for (let index = 0; index < this.count; index++) {
      let squares = 0;
      for (let offset = index * this.dimension; offset < (index + 1) * this.dimension; offset++)
        squares += components[offset] ** 2;
      this.inverseNorms[index] = squares > 0 ? 1 / Math.sqrt(squares) : 0;
    }
    this.commonDirection = unit(Float64Array.from(header.commonDirection));
  }

  static load(file: string): WordVectors {
    return WordVectors.decode(readFileSync(file));
  }

  /** Throws a clear error when the bytes are not a word-vector table this version reads. */
  static decode(bytes: Buffer): WordVectors {
    if (bytes.length < 8 || bytes.toString('latin1', 0, 4) !== MAGIC)
      throw new Error('Not a word-vector file (no WVEC signature)');
    const headerLength = bytes.readUInt32LE(4);
    let offset = 8;
    const header = JSON.parse(bytes.toString('utf8', offset, offset + headerLength)) as WordVectorsHeader;
    if (header.version !== FORMAT_VERSION)
      throw new Error(
        `Word-vector file version ${String(header.version)} is not supported (expected ${FORMAT_VERSION})`,
      );
    offset += headerLength;
    const words = bytes.toString('utf8', offset, offset + header.wordsBytes).split('\n');
    offset += header.wordsBytes;
    const expected = offset + 4 * header.count + header.count * header.dimension;
    if (
      words.length !== header.count ||
      bytes.length !== expected ||
      header.commonDirection.length !== header.dimension
    ) {
      throw new Error(`Word-vector file is truncated or inconsistent (${bytes.length} bytes, expected ${expected})`);
    }
    // Copies: typed arrays need aligned offsets, and the file buffer can then be collected.
    const ranks = new Uint32Array(header.count);
    for (let index = 0; index < header.count; index++) ranks[index] = bytes.readUInt32LE(offset + 4 * index);
    offset += 4 * header.count;
    const components = new Int8Array(header.count * header.dimension);
    components.set(new Int8Array(bytes.buffer, bytes.byteOffset + offset, components.length));
    return new WordVectors(header, words, ranks, components);
  }

  /** The word's row, or -1 when the table does not have it. */
  indexOf(word: string): number {
    return this.indexByWord.get(word) ?? -1;
  }

  rankOf(index: number): number {
    return this.ranks[index];
  }

  /** target += weight × the unit vector of row `index`. */
  addUnitVector(target: Float64Array, index: number, weight: number): void {
    const scale = weight * this.inverseNorms[index];
    const base = index * this.dimension;
    for (let component = 0; component < this.dimension; component++)
      target[component] += this.components[base + component] * scale;
  }
}

/**
 * The file bytes of a table (entries most frequent first): each vector quantized to int8 along its
 * unit direction, and the common direction computed from the quantized vectors (what readers see).
 */
export function encodeWordVectors(
  entries: readonly WordVectorEntry[],
  meta: { sourceWords: number; source: string },
): Buffer {
  const dimension = entries[0]?.vector.length ?? 0;
  const components = new Int8Array(entries.length * dimension);
  entries.forEach((entry, index) => {
    if (entry.vector.length !== dimension)
      throw new Error(`"${entry.word}" has ${entry.vector.length} components, not ${dimension}`);
    if (!entry.word || /\n/.test(entry.word)) throw new Error(`Invalid word ${JSON.stringify(entry.word)}`);
    let largest = 0;
    for (let component = 0; component < dimension; component++)
      largest = Math.max(largest, Math.abs(entry.vector[component]));
    const scale = largest > 0 ? 127 / largest : 0;
    for (let component = 0; component < dimension; component++)
      components[index * dimension + component] = Math.round(entry.vector[component] * scale);
  });
  const words = Buffer.from(entries.map((entry) => entry.word).join('\n'), 'utf8');
  const header: WordVectorsHeader = {
    version: FORMAT_VERSION,
    dimension,
    count: entries.length,
    sourceWords: meta.sourceWords,
    source: meta.source,
    wordsBytes: words.length,
    commonDirection: [
      ...principalDirection(components, dimension, Math.min(entries.length, COMMON_DIRECTION_WORDS)),
    ].map((value) => Math.round(value * 1e6) / 1e6),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(8);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes.length, 4);
  const ranks = Buffer.alloc(4 * entries.length);
  entries.forEach((entry, index) => ranks.writeUInt32LE(entry.rank, 4 * index));
  return Buffer.concat([
    prefix,
    headerBytes,
    words,
    ranks,
    Buffer.from(components.buffer, components.byteOffset, components.byteLength),
  ]);
}

/**
 * The first principal direction (uncentred) of the unit vectors of the first `rows` rows, by power
 * iteration: the direction every averaged sentence vector leans to, which SIF removes (Arora et al.,
 * 2017, "A simple but tough-to-beat baseline for sentence embeddings").
 */
function principalDirection(components: Int8Array, dimension: number, rows: number): Float64Array {
  const units = new Float64Array(rows * dimension);
  for (let row = 0; row < rows; row++) {
    let squares = 0;
    for (let component = 0; component < dimension; component++) squares += components[row * dimension + component] ** 2;
    const inverse = squares > 0 ? 1 / Math.sqrt(squares) : 0;
    for (let component = 0; component < dimension; component++)
      units[row * dimension + component] = components[row * dimension + component] * inverse;
  }
  let direction: Float64Array = new Float64Array(dimension).fill(1 / Math.sqrt(Math.max(1, dimension)));
  for (let iteration = 0; iteration < POWER_ITERATIONS; iteration++) {
    const next = new Float64Array(dimension);
    for (let row = 0; row < rows; row++) {
      let dot = 0;
      for (let component = 0; component < dimension; component++)
        dot += units[row * dimension + component] * direction[component];
      for (let component = 0; component < dimension; component++)
        next[component] += dot * units[row * dimension + component];
    }
    direction = unit(next);
  }
  return direction;
}

function unit(vector: Float64Array): Float64Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  if (squares === 0) return vector;
  const inverse = 1 / Math.sqrt(squares);
  return vector.map((value) => value * inverse);
}

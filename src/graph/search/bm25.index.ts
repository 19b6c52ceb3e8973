import { runAllSteps, Stepwise } from './stepwise';
import { TopKCollector } from './top-k.collector';

export interface Bm25Options {
  /** Term-frequency saturation (1.2 is the usual choice). */
  k1: number;
  /** Length normalization, 0 (none) to 1 (full). */
  b: number;
}

/** One field of a document: its tokens and how much an occurrence in it counts. */
export interface Bm25Field {
  tokens: readonly string[];
  weight: number;
}

/** A term's documents, ascending, and its frequency in each. Typed arrays: a view of a packed index, read only. */
interface Posting {
  docs: number[] | Uint32Array;
  frequencies: number[] | Float64Array;
}

interface MutablePosting {
  docs: number[];
  frequencies: number[];
}

/**
 * An index as flat arrays (Bm25Index.pack): built in one thread or process, used in another
 * (structured clone, transfer, v8.serialize) without rebuilding it. Postings and each document's
 * terms are stored back to back: term `t` owns postingDocs[postingOffsets[t] .. postingOffsets[t + 1]).
 */
export interface PackedBm25 {
  k1: number;
  b: number;
  /** Per posting id: its term. */
  terms: string[];
  postingOffsets: Uint32Array;
  postingDocs: Uint32Array;
  postingFrequencies: Float64Array;
  /** Per document number: its length, or -1 once removed. */
  lengths: Float64Array;
  documentTermOffsets: Uint32Array;
  /** Per document: the posting ids of its terms. */
  documentTerms: Uint32Array;
}

/** Length of a removed document's slot. */
const REMOVED = -1;
/** Items unpacked between two steps of `unpacking` (well under a millisecond). */
export const UNPACK_STEP = 2_048;

/**
 * Okapi BM25 over documents made of weighted fields (the simple BM25F: each occurrence adds its
 * field's weight to the term frequency and to the document length, then one saturation and one
 * length normalization apply). IDF is Lucene's log(1 + (N - df + 0.5) / (df + 0.5)), always positive,
 * so every matching document scores > 0. Documents are numbered 0, 1, 2... in insertion order.
 *
 * Documents can be replaced (same number) or removed (the number stays unused) in time proportional
 * to their own terms: document frequencies, the document count and the average length are kept
 * exact, so scores after any sequence of changes equal those of an index built from scratch over
 * the same documents in the same order (lengths are sums of field weights, exact in binary floating
 * point, so the average is not even rounded differently).
 *
 * `pack()` and `fromPacked()` move an index between threads or into a file: an unpacked index
 * answers exactly as the packed one did. Its postings stay views of the packed arrays until a
 * change touches them (then each touched term gets arrays of its own).
 */
export class Bm25Index {
  /** Term → posting id (its position in `postingsById`: what a document remembers of its terms). */
  private readonly termIds: Map<string, number>;
  /** Per posting id; a hole is a posting of `packed` not looked at yet. */
  private readonly postingsById: Array<Posting | undefined>;
  /** Per document number: its length, or REMOVED. */
  private readonly lengths: number[];
  /** Per document number: the ids of the postings it is in (null once removed; a hole: read it from `packed`). */
  private readonly documentTerms: Array<Uint32Array | null | undefined>;
  private liveCount = 0;
  private totalLength = 0;
  /** Per document: k1 × (1 − b + b × length / average length), computed on the first search after a change. */
  private lengthNorms: Float64Array | null = null;
  /** Reused across addDocument calls: one Map per document would dominate the build. */
  private readonly frequencies = new Map<string, number>();
  private scores: Float64Array | null = null;

  constructor(
    private readonly options: Bm25Options = { k1: 1.2, b: 0.75 },
    private readonly packed: PackedBm25 | null = null,
  ) {
    this.termIds = new Map();
    this.postingsById = packed ? new Array<Posting | undefined>(packed.terms.length) : [];
    this.lengths = packed ? new Array<number>(packed.lengths.length) : [];
    this.documentTerms = packed ? new Array<Uint32Array | null | undefined>(packed.lengths.length) : [];
  }

  /** An index that answers exactly as the one `packed` came from. The arrays are used as they are, not copied. */
  static fromPacked(packed: PackedBm25): Bm25Index {
    return runAllSteps(Bm25Index.unpacking(packed));
  }

  /**
   * fromPacked in steps: yields every UNPACK_STEP items (a caller gives the event loop a turn
   * between them), then returns the index.
   */
  static *unpacking(packed: PackedBm25): Stepwise<Bm25Index> {
    const index = new Bm25Index({ k1: packed.k1, b: packed.b }, packed);
    const { terms, lengths } = packed;
    for (let id = 0; id < terms.length; id += 1) {
      index.termIds.set(terms[id], id);
      if (id % UNPACK_STEP === UNPACK_STEP - 1) yield;
    }
    for (let doc = 0; doc < lengths.length; doc += 1) {
      const length = lengths[doc];
      index.lengths[doc] = length;
      if (length !== REMOVED) {
        index.liveCount += 1;
        index.totalLength += length;
      }
      if (doc % UNPACK_STEP === UNPACK_STEP - 1) yield;
    }
    return index;
  }

  /** Documents in the index (removed ones not counted). */
  get documentCount(): number {
    return this.liveCount;
  }

  addDocument(fields: readonly Bm25Field[]): number {
    const doc = this.lengths.length;
    this.lengths.push(REMOVED);
    this.documentTerms.push(null);
    this.write(doc, fields);
    return doc;
  }

  /** Replaces a document's content, keeping its number (its rank among equal scores). */
  replaceDocument(doc: number, fields: readonly Bm25Field[]): void {
    this.removeDocument(doc);
    this.write(doc, fields);
  }

  /** Removes a document; its number is never reused. False when it was not in the index. */
  removeDocument(doc: number): boolean {
    const terms = this.termsOf(doc);
    if (!terms) return false;
    for (const id of terms) {
      const posting = this.mutablePosting(id);
      const position = lowerBound(posting.docs, doc);
      posting.docs.splice(position, 1);
      posting.frequencies.splice(position, 1);
    }
    this.totalLength -= this.lengths[doc];
    this.lengths[doc] = REMOVED;
    this.documentTerms[doc] = null;
    this.liveCount -= 1;
    this.lengthNorms = null;
    return true;
  }

  /**
   * The `limit` best documents for the query terms (each distinct term counted once, or with its
   * weight when the terms come as a term → weight map), best first, ties by insertion order. `bonus` adds to chosen documents' scores (exact-match tiers); a
   * document needs a positive total to be returned. `accept`, when given, leaves the other documents
   * out of the result (they still count in the statistics).
   */
  search(
    queryTerms: readonly string[] | ReadonlyMap<string, number>,
    limit: number,
    bonus?: (doc: number, maxScore: number) => number,
    accept?: (doc: number) => boolean,
  ): Array<{ doc: number; score: number }> {
    const count = this.liveCount;
    if (count === 0 || limit <= 0) return [];
    const norms = this.lengthNormsOf(count);
    const k1 = this.options.k1;
    const scores = this.scoreAccumulators();
    const touched: number[] = [];
    try {
      const weighted = Array.isArray(queryTerms)
        ? new Map([...new Set(queryTerms)].map((term) => [term, 1]))
        : (queryTerms as ReadonlyMap<string, number>);
      for (const [term, weight] of weighted) {
        const id = this.termIds.get(term);
        if (id === undefined || weight <= 0) continue;
        const posting = this.posting(id);
        const df = posting.docs.length;
        const idf = weight * Math.log(1 + (count - df + 0.5) / (df + 0.5));
        for (let index = 0; index < df; index += 1) {
          const doc = posting.docs[index];
          const frequency = posting.frequencies[index];
          if (scores[doc] === 0) touched.push(doc);
          scores[doc] += (idf * frequency * (k1 + 1)) / (frequency + norms[doc]);
        }
      }
      let maxScore = 0;
      for (const doc of touched) if (scores[doc] > maxScore) maxScore = scores[doc];
      const collector = new TopKCollector(limit);
      for (const doc of touched) {
        if (accept && !accept(doc)) continue;
        const score = scores[doc] + (bonus ? bonus(doc, maxScore) : 0);
        if (score > 0) collector.offer(doc, score);
      }
      return collector.result().map(({ item, score }) => ({ doc: item, score }));
    } finally {
      for (const doc of touched) scores[doc] = 0;
    }
  }

  /**
   * One score per document, all 0: kept between searches and zeroed again by each one on its way
   * out, so a search allocates nothing per document (160 KB at 20,000 nodes otherwise).
   */
  private scoreAccumulators(): Float64Array {
    if (!this.scores || this.scores.length < this.lengths.length) this.scores = new Float64Array(this.lengths.length);
    return this.scores;
  }

  /** Indexes `fields` as document `doc`, whose slot exists and is empty. */
  private write(doc: number, fields: readonly Bm25Field[]): void {
    const frequencies = this.frequencies;
    frequencies.clear();
    let length = 0;
    for (const field of fields) {
      for (const token of field.tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + field.weight);
      length += field.tokens.length * field.weight;
    }
    const terms = new Uint32Array(frequencies.size);
    let termIndex = 0;
    for (const [term, frequency] of frequencies) {
      let id = this.termIds.get(term);
      let posting: MutablePosting;
      if (id === undefined) {
        id = this.postingsById.length;
        posting = { docs: [], frequencies: [] };
        this.termIds.set(term, id);
        this.postingsById.push(posting);
      } else {
        posting = this.mutablePosting(id);
      }
      const docs = posting.docs;
      // Appending is the common case (a build, a new node); a replaced document goes back to its place.
      if (docs.length === 0 || docs[docs.length - 1] < doc) {
        docs.push(doc);
        posting.frequencies.push(frequency);
      } else {
        const position = lowerBound(docs, doc);
        docs.splice(position, 0, doc);
        posting.frequencies.splice(position, 0, frequency);
      }
      terms[termIndex++] = id;
    }
    this.lengths[doc] = length;
    this.documentTerms[doc] = terms;
    this.totalLength += length;
    this.liveCount += 1;
    this.lengthNorms = null;
  }

  /**
   * The index as flat arrays (see PackedBm25), the arrays its own: packing again after a change, or
   * transferring the buffers to another thread, leaves this index as it was.
   */
  pack(): PackedBm25 {
    const termCount = this.postingsById.length;
    const terms = new Array<string>(termCount);
    for (const [term, id] of this.termIds) terms[id] = term;
    const postingOffsets = new Uint32Array(termCount + 1);
    for (let id = 0; id < termCount; id += 1)
      postingOffsets[id + 1] = postingOffsets[id] + this.posting(id).docs.length;
    const postingDocs = new Uint32Array(postingOffsets[termCount]);
    const postingFrequencies = new Float64Array(postingOffsets[termCount]);
    for (let id = 0; id < termCount; id += 1) {
      const posting = this.posting(id);
      postingDocs.set(posting.docs, postingOffsets[id]);
      postingFrequencies.set(posting.frequencies, postingOffsets[id]);
    }
    const documentCount = this.lengths.length;
    const documentTermOffsets = new Uint32Array(documentCount + 1);
    for (let doc = 0; doc < documentCount; doc += 1)
      documentTermOffsets[doc + 1] = documentTermOffsets[doc] + (this.termsOf(doc)?.length ?? 0);
    const documentTerms = new Uint32Array(documentTermOffsets[documentCount]);
    for (let doc = 0; doc < documentCount; doc += 1) {
      const ids = this.termsOf(doc);
      if (ids) documentTerms.set(ids, documentTermOffsets[doc]);
    }
    return {
      k1: this.options.k1,
      b: this.options.b,
      terms,
      postingOffsets,
      postingDocs,
      postingFrequencies,
      lengths: Float64Array.from(this.lengths),
      documentTermOffsets,
      documentTerms,
    };
  }

  /** The posting of `id`, a view of the packed arrays until a change made it the index's own. */
  private posting(id: number): Posting {
    let posting = this.postingsById[id];
    if (!posting) {
      const packed = this.packed as PackedBm25;
      const start = packed.postingOffsets[id];
      const end = packed.postingOffsets[id + 1];
      posting = {
        docs: packed.postingDocs.subarray(start, end),
        frequencies: packed.postingFrequencies.subarray(start, end),
      };
      this.postingsById[id] = posting;
    }
    return posting;
  }

  /** The posting of `id` as arrays that may change: a packed view is copied first. */
  private mutablePosting(id: number): MutablePosting {
    const posting = this.posting(id);
    if (Array.isArray(posting.docs)) return posting as MutablePosting;
    const own = { docs: Array.from(posting.docs), frequencies: Array.from(posting.frequencies) };
    this.postingsById[id] = own;
    return own;
  }

  /** The posting ids of document `doc`'s terms; null once removed. */
  private termsOf(doc: number): Uint32Array | null {
    let terms = this.documentTerms[doc];
    if (terms === undefined) {
      const packed = this.packed;
      terms =
        packed && this.lengths[doc] !== REMOVED
          ? packed.documentTerms.subarray(packed.documentTermOffsets[doc], packed.documentTermOffsets[doc + 1])
          : null;
      this.documentTerms[doc] = terms;
    }
    return terms;
  }

  private lengthNormsOf(count: number): Float64Array {
    if (this.lengthNorms) return this.lengthNorms;
    const { k1, b } = this.options;
    const averageLength = this.totalLength / count || 1;
    const norms = new Float64Array(this.lengths.length);
    for (let doc = 0; doc < norms.length; doc += 1) {
      const length = this.lengths[doc];
      if (length !== REMOVED) norms[doc] = k1 * (1 - b + (b * length) / averageLength);
    }
    this.lengthNorms = norms;
    return norms;
  }
}

/** First position in ascending `values` whose value is >= `target`. */
function lowerBound(values: ArrayLike<number>, target: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle] < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

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

interface Posting {
  /** Position in `postingsById`: what a document remembers of its terms. */
  id: number;
  /** Ascending. */
  docs: number[];
  frequencies: number[];
}

/** Length of a removed document's slot. */
const REMOVED = -1;

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
 */
export class Bm25Index {
  private readonly postings = new Map<string, Posting>();
  private readonly postingsById: Posting[] = [];
  /** Per document number: its length, or REMOVED. */
  private readonly lengths: number[] = [];
  /** Per document number: the ids of the postings it is in (null once removed). */
  private readonly documentTerms: Array<Uint32Array | null> = [];
  private liveCount = 0;
  private totalLength = 0;
  /** Per document: k1 × (1 − b + b × length / average length), computed on the first search after a change. */
  private lengthNorms: Float64Array | null = null;
  /** Reused across addDocument calls: one Map per document would dominate the build. */
  private readonly frequencies = new Map<string, number>();

  constructor(private readonly options: Bm25Options = { k1: 1.2, b: 0.75 }) {}

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
    const terms = this.documentTerms[doc];
    if (!terms) return false;
    for (const id of terms) {
      const posting = this.postingsById[id];
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
    const k1 = this.options.k1;
    const norms = this.lengthNormsOf(count);
    const scores = new Float64Array(this.lengths.length);
    const touched: number[] = [];
    const weighted = Array.isArray(queryTerms)
      ? new Map([...new Set(queryTerms)].map((term) => [term, 1]))
      : (queryTerms as ReadonlyMap<string, number>);
    for (const [term, weight] of weighted) {
      const posting = this.postings.get(term);
      if (!posting || weight <= 0) continue;
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
      let posting = this.postings.get(term);
      if (!posting) {
        posting = { id: this.postingsById.length, docs: [], frequencies: [] };
        this.postings.set(term, posting);
        this.postingsById.push(posting);
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
      terms[termIndex++] = posting.id;
    }
    this.lengths[doc] = length;
    this.documentTerms[doc] = terms;
    this.totalLength += length;
    this.liveCount += 1;
    this.lengthNorms = null;
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
function lowerBound(values: readonly number[], target: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle] < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

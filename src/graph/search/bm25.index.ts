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
  docs: number[];
  frequencies: number[];
}

/**
 * Okapi BM25 over documents made of weighted fields (the simple BM25F: each occurrence adds its
 * field's weight to the term frequency and to the document length, then one saturation and one
 * length normalization apply). IDF is Lucene's log(1 + (N - df + 0.5) / (df + 0.5)), always positive,
 * so every matching document scores > 0. Documents are numbered 0, 1, 2... in insertion order.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Posting>();
  private readonly lengths: number[] = [];
  private totalLength = 0;
  /** Per document: k1 × (1 − b + b × length / average length), computed on the first search after additions. */
  private lengthNorms: Float64Array | null = null;
  /** Reused across addDocument calls: one Map per document would dominate the build. */
  private readonly frequencies = new Map<string, number>();

  constructor(private readonly options: Bm25Options = { k1: 1.2, b: 0.75 }) {}

  get documentCount(): number {
    return this.lengths.length;
  }

  addDocument(fields: readonly Bm25Field[]): number {
    const doc = this.lengths.length;
    const frequencies = this.frequencies;
    frequencies.clear();
    let length = 0;
    for (const field of fields) {
      for (const token of field.tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + field.weight);
      length += field.tokens.length * field.weight;
    }
    for (const [term, frequency] of frequencies) {
      let posting = this.postings.get(term);
      if (!posting) {
        posting = { docs: [], frequencies: [] };
        this.postings.set(term, posting);
      }
      posting.docs.push(doc);
      posting.frequencies.push(frequency);
    }
    this.lengths.push(length);
    this.totalLength += length;
    this.lengthNorms = null;
    return doc;
  }

  /**
   * The `limit` best documents for the query terms (each distinct term counted once), best first,
   * ties by insertion order. `bonus` adds to chosen documents' scores (exact-match tiers); a
   * document needs a positive total to be returned.
   */
  search(queryTerms: readonly string[], limit: number, bonus?: (doc: number, maxScore: number) => number): Array<{ doc: number; score: number }> {
    const count = this.lengths.length;
    if (count === 0 || limit <= 0) return [];
    const k1 = this.options.k1;
    const norms = this.lengthNormsOf(count);
    const scores = new Float64Array(count);
    const touched: number[] = [];
    for (const term of new Set(queryTerms)) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const df = posting.docs.length;
      const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
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
      const score = scores[doc] + (bonus ? bonus(doc, maxScore) : 0);
      if (score > 0) collector.offer(doc, score);
    }
    return collector.result().map(({ item, score }) => ({ doc: item, score }));
  }

  private lengthNormsOf(count: number): Float64Array {
    if (this.lengthNorms) return this.lengthNorms;
    const { k1, b } = this.options;
    const averageLength = this.totalLength / count || 1;
    const norms = new Float64Array(count);
    for (let doc = 0; doc < count; doc += 1) norms[doc] = k1 * (1 - b + (b * this.lengths[doc]) / averageLength);
    this.lengthNorms = norms;
    return norms;
  }
}

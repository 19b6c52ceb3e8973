import { seededRandom } from '../../../test/support/seeded-random';
import { Bm25Field, Bm25Index } from './bm25.index';

const doc = (text: string, weight = 1) => [{ tokens: text.split(' ').filter(Boolean), weight }];

describe(Bm25Index.name, () => {
  it('matches the Okapi BM25 formula on a single field', () => {
    const index = new Bm25Index({ k1: 1.2, b: 0.75 });
    index.addDocument(doc('apple banana apple'));
    index.addDocument(doc('banana cherry'));
    index.addDocument(doc('cherry date elderberry fig'));
    const [hit] = index.search(['apple'], 1);
    const averageLength = (3 + 2 + 4) / 3;
    const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const expected = (idf * 2 * 2.2) / (2 + 1.2 * (1 - 0.75 + (0.75 * 3) / averageLength));
    expect(hit.doc).toBe(0);
    expect(hit.score).toBeCloseTo(expected, 10);
  });

  it('ranks rarer terms higher and sums over distinct query terms', () => {
    const index = new Bm25Index();
    index.addDocument(doc('common rare'));
    index.addDocument(doc('common other'));
    index.addDocument(doc('common thing'));
    const hits = index.search(['common', 'rare', 'rare'], 10);
    expect(hits.map((hit) => hit.doc)).toEqual([0, 1, 2]);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(index.search(['rare'], 10)[0].score).toBeCloseTo(hits[0].score - hits[1].score, 10);
  });

  it('counts an occurrence by its field weight', () => {
    const index = new Bm25Index();
    index.addDocument([
      { tokens: ['alpha'], weight: 1 },
      { tokens: ['filler', 'words'], weight: 1 },
    ]);
    index.addDocument([
      { tokens: ['alpha'], weight: 3 },
      { tokens: ['filler', 'words'], weight: 1 },
    ]);
    expect(index.search(['alpha'], 2).map((hit) => hit.doc)).toEqual([1, 0]);
  });

  it('normalizes by length: a short document beats a long one with the same occurrences', () => {
    const index = new Bm25Index();
    index.addDocument(doc('target one two three four five six seven'));
    index.addDocument(doc('target one'));
    expect(index.search(['target'], 2).map((hit) => hit.doc)).toEqual([1, 0]);
  });

  it('returns nothing for unknown terms, an empty index or a zero limit', () => {
    const index = new Bm25Index();
    expect(index.search(['anything'], 5)).toEqual([]);
    index.addDocument(doc('present'));
    expect(index.search(['absent'], 5)).toEqual([]);
    expect(index.search(['present'], 0)).toEqual([]);
  });

  it('adds the bonus a caller gives, with the best plain score to scale it', () => {
    const index = new Bm25Index();
    index.addDocument(doc('term term term'));
    index.addDocument(doc('term other'));
    const hits = index.search(['term'], 2, (docId, maxScore) => (docId === 1 ? maxScore + 1 : 0));
    expect(hits[0].doc).toBe(1);
  });

  it('starts each search from zero, after a search that a caller callback broke off too', () => {
    const index = new Bm25Index();
    index.addDocument([{ tokens: ['invoice', 'refund'], weight: 1 }]);
    index.addDocument([{ tokens: ['invoice'], weight: 1 }]);
    index.addDocument([{ tokens: ['ledger'], weight: 1 }]);
    const first = index.search(['invoice'], 5);
    expect(index.search(['ledger'], 5)).toEqual([{ doc: 2, score: expect.any(Number) }]);
    expect(() =>
      index.search(['invoice', 'refund'], 5, undefined, () => {
        throw new Error('caller failed');
      }),
    ).toThrow('caller failed');
    expect(index.search(['invoice'], 5)).toEqual(first);
    index.addDocument([{ tokens: ['invoice', 'ledger', 'ledger'], weight: 1 }]);
    const fresh = new Bm25Index();
    for (const tokens of [['invoice', 'refund'], ['invoice'], ['ledger'], ['invoice', 'ledger', 'ledger']])
      fresh.addDocument([{ tokens, weight: 1 }]);
    expect(index.search(['invoice', 'ledger'], 5)).toEqual(fresh.search(['invoice', 'ledger'], 5));
    expect(index.search(['invoice', 'ledger'], 5)).toHaveLength(4);
  });

  it('answers exactly as a fresh build after replacing and removing documents (random edits)', () => {
    const vocabulary = [
      'alpha',
      'beta',
      'gamma',
      'delta',
      'epsilon',
      'zeta',
      'eta',
      'theta',
      'iota',
      'kappa',
      'lambda',
      'mu',
    ];
    for (let seed = 1; seed <= 20; seed += 1) {
      const random = seededRandom(seed);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
      const randomFields = (): Bm25Field[] =>
        [3, 1.5, 1, 0.75].map((weight) => ({
          weight,
          tokens: Array.from({ length: Math.floor(random() * 6) }, () => pick(vocabulary)),
        }));

      const index = new Bm25Index();
      const live = new Map<number, Bm25Field[]>();
      for (let step = 0; step < 120; step += 1) {
        const action = random();
        const docs = [...live.keys()];
        if (docs.length === 0 || action < 0.4) {
          const fields = randomFields();
          live.set(index.addDocument(fields), fields);
        } else if (action < 0.75) {
          const doc = pick(docs);
          const fields = randomFields();
          index.replaceDocument(doc, fields);
          live.set(doc, fields);
        } else {
          const doc = pick(docs);
          expect(index.removeDocument(doc)).toBe(true);
          expect(index.removeDocument(doc)).toBe(false);
          live.delete(doc);
        }
      }

      const order = [...live.keys()].sort((a, b) => a - b);
      const fresh = new Bm25Index();
      for (const doc of order) fresh.addDocument(live.get(doc) as Bm25Field[]);
      expect(index.documentCount).toBe(fresh.documentCount);
      for (const query of [['alpha'], ['beta', 'gamma'], ['mu', 'alpha', 'kappa', 'kappa'], vocabulary]) {
        const expected = fresh.search(query, 15).map(({ doc, score }) => ({ doc: order[doc], score }));
        expect(index.search(query, 15)).toEqual(expected);
      }
    }
  });

  it('packs into flat arrays that unpack to an index answering the same, before and after further edits on either side', () => {
    const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const queries = [['alpha'], ['beta', 'gamma'], ['theta', 'alpha', 'delta'], vocabulary];
    for (let seed = 1; seed <= 10; seed += 1) {
      const random = seededRandom(seed);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
      const randomFields = (): Bm25Field[] =>
        [3, 1.5, 0.75].map((weight) => ({
          weight,
          tokens: Array.from({ length: Math.floor(random() * 5) }, () => pick(vocabulary)),
        }));
      /** The same random edits on both indexes. */
      const edit = (indexes: Bm25Index[], live: Set<number>, steps: number) => {
        for (let step = 0; step < steps; step += 1) {
          const docs = [...live];
          const action = random();
          const fields = randomFields();
          if (docs.length === 0 || action < 0.4) {
            const added = indexes.map((index) => index.addDocument(fields));
            expect(new Set(added).size).toBe(1);
            live.add(added[0]);
          } else if (action < 0.75) {
            const doc = pick(docs);
            for (const index of indexes) index.replaceDocument(doc, fields);
          } else {
            const doc = pick(docs);
            for (const index of indexes) expect(index.removeDocument(doc)).toBe(true);
            live.delete(doc);
          }
        }
      };

      const original = new Bm25Index({ k1: 1.1, b: 0.6 });
      const live = new Set<number>();
      edit([original], live, 60);
      const packed = original.pack();
      const unpacked = Bm25Index.fromPacked(packed);
      expect(unpacked.documentCount).toBe(original.documentCount);
      for (const query of queries) expect(unpacked.search(query, 20)).toEqual(original.search(query, 20));

      // Edits after unpacking copy the touched postings: the packed arrays (and a second unpacking) stay as they were.
      const before = { docs: packed.postingDocs.slice(), frequencies: packed.postingFrequencies.slice() };
      edit([original, unpacked], live, 60);
      for (const query of queries) expect(unpacked.search(query, 20)).toEqual(original.search(query, 20));
      expect(packed.postingDocs).toEqual(before.docs);
      expect(packed.postingFrequencies).toEqual(before.frequencies);
      const again = Bm25Index.fromPacked(unpacked.pack());
      for (const query of queries) expect(again.search(query, 20)).toEqual(original.search(query, 20));
    }
  });

  it('weighs each query term by its weight when given a term → weight map, and leaves out documents not accepted', () => {
    const index = new Bm25Index();
    index.addDocument([{ tokens: ['email', 'send'], weight: 1 }]);
    index.addDocument([{ tokens: ['mail', 'send'], weight: 1 }]);
    index.addDocument([{ tokens: ['other'], weight: 1 }]);
    const plain = index.search(['email', 'mail'], 3);
    expect(plain[0].score).toBeCloseTo(plain[1].score);
    const weighted = index.search(
      new Map([
        ['email', 1],
        ['mail', 0.5],
      ]),
      3,
    );
    expect(weighted.map((hit) => hit.doc)).toEqual([0, 1]);
    expect(weighted[1].score).toBeCloseTo(plain[1].score / 2);
    expect(index.search(['send'], 3, undefined, (doc) => doc !== 0).map((hit) => hit.doc)).toEqual([1]);
  });
});

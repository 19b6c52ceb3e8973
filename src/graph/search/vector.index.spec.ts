import { seededRandom } from '../../../test/support/seeded-random';
import { JsDotProductKernel } from './js-dot-product.kernel';
import { VectorIndex } from './vector.index';
import { WasmDotProductKernel } from './wasm-dot-product.kernel';

const vec = (...values: number[]) => Float32Array.from(values);

describe(VectorIndex.name, () => {
  it('ranks by cosine similarity, whatever the vectors lengths', () => {
    const index = VectorIndex.build([
      { key: 'east', vector: vec(10, 0, 0) },
      { key: 'north-east', vector: vec(1, 1, 0) },
      { key: 'north', vector: vec(0, 3, 0) },
    ]);
    const hits = index.search(vec(2, 0, 0), -1, 10);
    expect(hits.map((hit) => hit.key)).toEqual(['east', 'north-east', 'north']);
    expect(hits[0].score).toBeCloseTo(1, 6);
    expect(hits[1].score).toBeCloseTo(Math.SQRT1_2, 6);
    expect(hits[2].score).toBeCloseTo(0, 6);
  });

  it('keeps only scores strictly above the threshold, and at most the limit', () => {
    const index = VectorIndex.build([
      { key: 'same', vector: vec(1, 0) },
      { key: 'close', vector: vec(0.9, 0.1) },
      { key: 'orthogonal', vector: vec(0, 1) },
      { key: 'opposite', vector: vec(-1, 0) },
    ]);
    expect(index.search(vec(1, 0), 0.3, 10).map((hit) => hit.key)).toEqual(['same', 'close']);
    expect(index.search(vec(1, 0), 0, 10).map((hit) => hit.key)).toEqual(['same', 'close']);
    expect(index.search(vec(1, 0), 0.3, 1).map((hit) => hit.key)).toEqual(['same']);
  });

  it.each([
    [
      'WebAssembly SIMD',
      (rows: number, dimension: number) => new WasmDotProductKernel(rows, Math.ceil(dimension / 8) * 8),
    ],
    ['JavaScript', (rows: number, dimension: number) => new JsDotProductKernel(rows, Math.ceil(dimension / 8) * 8)],
  ])('matches a brute-force cosine on a dimension that needs padding (%s kernel)', (_name, createKernel) => {
    const dimension = 13;
    const entries = Array.from({ length: 50 }, (_, row) => ({
      key: `n${row}`,
      vector: Float32Array.from({ length: dimension }, (_, column) => Math.sin(row * 31 + column * 7)),
    }));
    const query = Float32Array.from({ length: dimension }, (_, column) => Math.cos(column));
    const cosine = (a: Float32Array, b: Float32Array) => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i += 1) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
      }
      return dot / Math.sqrt(na * nb);
    };
    const expected = entries
      .map((entry) => ({ key: entry.key, score: cosine(entry.vector, query) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 5);
    const hits = VectorIndex.build(entries, { createKernel }).search(query, -1, 5);
    expect(hits.map((hit) => hit.key)).toEqual(expected.map((hit) => hit.key));
    hits.forEach((hit, index) => expect(hit.score).toBeCloseTo(expected[index].score, 5));
  });

  it('uses the WebAssembly SIMD kernel on this runtime', () => {
    expect(WasmDotProductKernel.isSupported()).toBe(true);
  });

  it('skips rows of another dimension or with a zero norm, and ignores a query of another dimension', () => {
    const index = VectorIndex.build([
      { key: 'ok', vector: vec(1, 0) },
      { key: 'longer', vector: vec(1, 0, 0) },
      { key: 'zero', vector: vec(0, 0) },
    ]);
    expect(index.size).toBe(1);
    expect(index.skipped).toBe(2);
    expect(index.dimension).toBe(2);
    expect(index.search(vec(1, 0, 0), -1, 5)).toEqual([]);
    expect(index.search(vec(0, 0), -1, 5)).toEqual([]);
  });

  it('is empty when built from nothing', () => {
    const index = VectorIndex.build([]);
    expect(index.size).toBe(0);
    expect(index.search(vec(1), -1, 3)).toEqual([]);
  });

  describe('kept current entry by entry', () => {
    /**
     * Random sets and removals (new vectors, new keys, a key deleted and created again under a new
     * order, a vector dropped then set again under its old order, zero vectors, exact duplicates that
     * tie); after each few, the index must answer exactly as a fresh build over the same entries: same
     * keys, same scores to the bit, same order among ties.
     */
    function checkRandomUpdates(options: {
      rows: number;
      dimension: number;
      minRowsForPrescan: number;
      seed: number;
    }): VectorIndex {
      const random = seededRandom(options.seed);
      const centres = Array.from({ length: 6 }, () =>
        Float32Array.from({ length: options.dimension }, () => random() - 0.5),
      );
      const fresh = () =>
        Float32Array.from(centres[Math.floor(random() * centres.length)], (value) => value + (random() - 0.5) * 0.6);
      const current = new Map<string, { vector: Float32Array; order: number }>();
      let nextOrder = 0;
      for (let row = 0; row < options.rows; row += 1) current.set(`n${row}`, { vector: fresh(), order: nextOrder++ });
      const build = () =>
        VectorIndex.build(
          [...current].map(([key, { vector, order }]) => ({ key, vector, order })),
          { minRowsForPrescan: options.minRowsForPrescan },
        );
      const index = build();
      const queries = Array.from({ length: 6 }, fresh);
      const dropped = new Map<string, number>();
      const expectFreshAnswers = () => {
        const reference = build();
        for (const [position, query] of queries.entries()) {
          const [minScore, limit] = position % 2 === 0 ? [0.2, 10] : [-1, 40];
          expect(index.search(query, minScore, limit)).toEqual(reference.search(query, minScore, limit));
        }
        expect(index.size).toBe(reference.size);
        expect(index.skipped).toBe(reference.skipped);
      };

      expectFreshAnswers();
      for (let step = 0; step < 300; step += 1) {
        const keys = [...current.keys()];
        const key = keys[Math.floor(random() * keys.length)];
        const action = random();
        if (action < 0.25) {
          current.get(key)!.vector = fresh();
        } else if (action < 0.35) {
          // Same content as another entry: an exact tie, ranked by order.
          current.get(key)!.vector = Float32Array.from(current.get(keys[0])!.vector);
        } else if (action < 0.5) {
          // Content changed: the vector is dropped (the node keeps its row), set again later.
          dropped.set(key, current.get(key)!.order);
          current.delete(key);
          index.remove(key);
          continue;
        } else if (action < 0.6 && dropped.size > 0) {
          const [back, order] = [...dropped][0];
          dropped.delete(back);
          current.set(back, { vector: fresh(), order });
          expect(index.set(back, current.get(back)!.vector, order)).toBe(true);
          continue;
        } else if (action < 0.75) {
          const added = `added-${step}`;
          current.set(added, { vector: fresh(), order: nextOrder++ });
          expect(index.set(added, current.get(added)!.vector, current.get(added)!.order)).toBe(true);
          continue;
        } else if (action < 0.85) {
          // Deleted and created again: same key, a new row (last in order).
          current.get(key)!.order = nextOrder++;
          current.get(key)!.vector = fresh();
        } else if (action < 0.9) {
          current.get(key)!.vector = new Float32Array(options.dimension);
        } else {
          current.delete(key);
          index.remove(key);
          continue;
        }
        const { vector, order } = current.get(key)!;
        expect(index.set(key, vector, order)).toBe(true);
        if (step % 10 === 9) expectFreshAnswers();
      }
      expectFreshAnswers();
      return index;
    }

    it('answers exactly as a fresh build after random sets and removals (full float32 scans)', () => {
      checkRandomUpdates({ rows: 120, dimension: 24, minRowsForPrescan: Number.MAX_SAFE_INTEGER, seed: 3 });
    });

    it('answers exactly as a fresh build after random sets and removals (int8 pre-scan, copies and error bounds updated)', () => {
      checkRandomUpdates({ rows: 400, dimension: 40, minRowsForPrescan: 0, seed: 5 });
    });

    it.each([
      ['full float32 scans', Number.MAX_SAFE_INTEGER],
      ['int8 pre-scan', 0],
    ])(
      'packs into flat arrays that unpack (through a structured clone) to an index answering the same, to the bit, before and after further sets (%s)',
      (_, minRowsForPrescan) => {
        const updated = checkRandomUpdates({ rows: 200, dimension: 40, minRowsForPrescan, seed: 11 });
        const unpacked = VectorIndex.fromPacked(structuredClone(updated.pack()), { minRowsForPrescan });
        const random = seededRandom(12);
        const vector = () => Float32Array.from({ length: 40 }, () => random() - 0.5);
        const queries = Array.from({ length: 8 }, vector);
        const expectSame = () => {
          for (const query of queries) {
            expect(unpacked.search(query, 0.1, 15)).toEqual(updated.search(query, 0.1, 15));
            expect(unpacked.search(query, -1, 60)).toEqual(updated.search(query, -1, 60));
          }
          expect([unpacked.size, unpacked.skipped, unpacked.updatable]).toEqual([
            updated.size,
            updated.skipped,
            updated.updatable,
          ]);
        };
        expectSame();
        for (let step = 0; step < 80; step += 1) {
          const key = `late-${step % 30}`;
          const value = step % 7 === 0 ? new Float32Array(40) : vector();
          for (const index of [updated, unpacked]) {
            if (step % 5 === 4) index.remove(key);
            else expect(index.set(key, value, 10_000 + step)).toBe(true);
          }
        }
        expectSame();
      },
    );

    it.each([
      ['a few keys, scored one by one', 12],
      ['many keys, kept by the scan', 150],
    ])('searches only the keys it is given (%s), with the scores and order of the whole search', (_, keyCount) => {
      const updated = checkRandomUpdates({ rows: 300, dimension: 24, minRowsForPrescan: 0, seed: 21 });
      const random = seededRandom(22);
      const keys = updated.pack().keys;
      const among = new Set([...keys].sort(() => random() - 0.5).slice(0, keyCount));
      among.add('absent-key');
      for (let query = 0; query < 6; query += 1) {
        const vector = Float32Array.from({ length: 24 }, () => random() - 0.5);
        const whole = updated.search(vector, -1, 1_000).filter((hit) => among.has(hit.key));
        expect(updated.search(vector, -1, 20, among)).toEqual(whole.slice(0, 20));
        expect(updated.search(vector, 0.1, 5, among)).toEqual(whole.filter((hit) => hit.score > 0.1).slice(0, 5));
      }
    });

    it.each([
      ['with the int8 copy', 0],
      ['without it', Number.MAX_SAFE_INTEGER],
    ])('packs entries without kernels exactly as a build would be packed (%s)', (_, minRowsForPrescan) => {
      const random = seededRandom(31);
      const entries = Array.from({ length: 300 }, (_unused, row) => ({
        key: `n${row}`,
        vector:
          row % 50 === 7
            ? new Float32Array(20)
            : Float32Array.from({ length: row % 97 === 3 ? 19 : 20 }, () => random() - 0.5),
        order: 1000 - row,
      }));
      const values = (packed: ReturnType<VectorIndex['pack']>) => ({
        ...packed,
        orders: Array.from(packed.orders),
        matrix: Array.from(packed.matrix),
        coarse: packed.coarse && {
          ...packed.coarse,
          matrix: Array.from(packed.coarse.matrix),
          scales: Array.from(packed.coarse.scales),
          residuals: Array.from(packed.coarse.residuals),
        },
      });
      expect(values(VectorIndex.packEntries(entries, minRowsForPrescan))).toEqual(
        values(VectorIndex.build(entries, { minRowsForPrescan }).pack()),
      );
      expect(values(VectorIndex.packEntries([]))).toEqual(values(VectorIndex.build([]).pack()));
    });

    it('packs an empty index and one built from mixed dimensions as they are', () => {
      const mixed = VectorIndex.fromPacked(
        structuredClone(
          VectorIndex.build([
            { key: 'a', vector: vec(1, 0) },
            { key: 'b', vector: vec(1, 0, 0) },
          ]).pack(),
        ),
      );
      expect([mixed.size, mixed.skipped, mixed.updatable]).toEqual([1, 1, false]);
      expect(mixed.search(vec(1, 0), 0, 5)).toEqual([{ key: 'a', score: 1 }]);
      const empty = VectorIndex.fromPacked(VectorIndex.build([]).pack());
      expect([empty.size, empty.dimension]).toEqual([0, 0]);
    });

    it('grows past its first size, and takes up the int8 pre-scan once large enough, still answering as a fresh build', () => {
      const random = seededRandom(8);
      const entries = Array.from({ length: 300 }, (_, row) => ({
        key: `n${row}`,
        vector: Float32Array.from({ length: 16 }, () => random() - 0.5),
        order: row,
      }));
      const options = {
        minRowsForPrescan: 80,
        createKernel: (rows: number, dimension: number) => new JsDotProductKernel(rows, Math.ceil(dimension / 8) * 8),
      };
      const index = VectorIndex.build(entries.slice(0, 60), options);
      const query = entries[7].vector;
      for (const [count, entry] of entries.slice(60).entries()) {
        expect(index.set(entry.key, entry.vector, entry.order)).toBe(true);
        if (count % 40 === 0)
          expect(index.search(query, -1, 25)).toEqual(
            VectorIndex.build(entries.slice(0, 61 + count), options).search(query, -1, 25),
          );
      }
      expect(index.size).toBe(300);
      // Past 80 rows the int8 pre-scan answers: the full float32 scan no longer runs.
      const run = jest.spyOn(JsDotProductKernel.prototype, 'run');
      expect(index.search(query, 0.3, 5)).toEqual(VectorIndex.build(entries, options).search(query, 0.3, 5));
      expect(run).toHaveBeenCalledTimes(0);
      run.mockRestore();
    });

    it('refuses a vector of another dimension, and any update of an index built from mixed dimensions', () => {
      const index = VectorIndex.build([{ key: 'a', vector: vec(1, 0) }]);
      expect(index.set('b', vec(1, 0, 0), 1)).toBe(false);
      expect(index.search(vec(1, 0), -1, 5).map((hit) => hit.key)).toEqual(['a']);
      expect(index.set('b', vec(0, 1), 1)).toBe(true);
      expect(index.search(vec(0, 1), 0.5, 5).map((hit) => hit.key)).toEqual(['b']);
      expect(index.updatable).toBe(true);

      const mixed = VectorIndex.build([
        { key: 'a', vector: vec(1, 0) },
        { key: 'b', vector: vec(1, 0, 0) },
      ]);
      expect(mixed.updatable).toBe(false);
      expect(mixed.set('a', vec(0, 1), 0)).toBe(false);
    });

    it('takes its dimension from the first vector set when built empty, then answers as a fresh build', () => {
      const empty = VectorIndex.build([]);
      expect(empty.updatable).toBe(true);
      expect(empty.set('zero', vec(0, 0), 0)).toBe(true);
      expect(empty.set('a', vec(1, 0), 1)).toBe(true);
      expect(empty.set('b', vec(1, 0, 0), 2)).toBe(false);
      const random = seededRandom(4);
      const entries = Array.from({ length: 150 }, (_, row) => ({
        key: `n${row}`,
        vector: Float32Array.from({ length: 2 }, () => random() - 0.5),
        order: 10 + row,
      }));
      for (const entry of entries) expect(empty.set(entry.key, entry.vector, entry.order)).toBe(true);
      const fresh = VectorIndex.build([
        { key: 'zero', vector: vec(0, 0), order: 0 },
        { key: 'a', vector: vec(1, 0), order: 1 },
        ...entries,
      ]);
      expect([empty.size, empty.skipped]).toEqual([fresh.size, fresh.skipped]);
      for (const query of [vec(1, 0), vec(-0.3, 0.8)])
        expect(empty.search(query, -1, 40)).toEqual(fresh.search(query, -1, 40));
    });
  });

  describe('int8 pre-scan', () => {
    /** Deterministic pseudo-random unit-ish vectors: clusters around a few centres, like real embeddings. */
    function dataset(rows: number, dimension: number) {
      const random = seededRandom(12345);
      const next = () => random() - 0.5;
      const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: dimension }, next));
      const entries = Array.from({ length: rows }, (_, row) => ({
        key: `n${row}`,
        vector: Float32Array.from(centres[row % 8], (value) => value + next() * 0.8),
      }));
      const queries = Array.from({ length: 12 }, (_, index) =>
        Float32Array.from(entries[(index * 97) % rows].vector, (value) => value + next() * 0.3),
      );
      return { entries, queries };
    }

    function bruteForce(
      entries: Array<{ key: string; vector: Float32Array }>,
      query: Float32Array,
      minScore: number,
      limit: number,
    ) {
      const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, value) => sum + value * value, 0));
      return entries
        .map((entry, row) => ({
          row,
          key: entry.key,
          score: entry.vector.reduce((sum, value, i) => sum + value * query[i], 0) / (norm(entry.vector) * norm(query)),
        }))
        .filter((hit) => hit.score > minScore)
        .sort((a, b) => b.score - a.score || a.row - b.row)
        .slice(0, limit);
    }

    function countingKernel() {
      const runs = { count: 0 };
      const createKernel = (rows: number, dimension: number) => {
        const kernel = new JsDotProductKernel(rows, Math.ceil(dimension / 8) * 8);
        const run = kernel.run.bind(kernel);
        kernel.run = () => {
          runs.count += 1;
          run();
        };
        return kernel;
      };
      return { runs, createKernel };
    }

    it.each([
      [0.3, 10],
      [0.5, 3],
      [0.8, 50],
    ])(
      'returns exactly the brute-force answer (minScore %s, top %s) without a full float32 scan',
      (minScore, limit) => {
        const { entries, queries } = dataset(3000, 60);
        const { runs, createKernel } = countingKernel();
        const index = VectorIndex.build(entries, { createKernel, minRowsForPrescan: 0 });
        let found = 0;
        for (const query of queries) {
          const expected = bruteForce(entries, query, minScore, limit);
          found += expected.length;
          const hits = index.search(query, minScore, limit);
          expect(hits.map((hit) => hit.key)).toEqual(expected.map((hit) => hit.key));
          hits.forEach((hit, position) => expect(hit.score).toBeCloseTo(expected[position].score, 5));
        }
        expect(found).toBeGreaterThanOrEqual(queries.length);
        expect(runs.count).toBe(0);
      },
    );

    it("gives the full float32 scan's answer to the bit, scores included (the rows it keeps are scored by the same kernel)", () => {
      const { entries, queries } = dataset(3000, 60);
      const prescanned = VectorIndex.build(entries, { minRowsForPrescan: 0 });
      const scanned = VectorIndex.build(entries, { minRowsForPrescan: Number.MAX_SAFE_INTEGER });
      for (const query of queries) expect(prescanned.search(query, 0.3, 10)).toEqual(scanned.search(query, 0.3, 10));
    });

    it('falls back to the full scan when the bounds rule out too few rows (ties)', () => {
      const { entries } = dataset(2000, 60);
      const same = entries.map((entry) => ({ key: entry.key, vector: entries[0].vector }));
      const { runs, createKernel } = countingKernel();
      const index = VectorIndex.build(same, { createKernel, minRowsForPrescan: 0 });
      const hits = index.search(entries[0].vector, 0.3, 5);
      expect(hits.map((hit) => hit.key)).toEqual(bruteForce(same, entries[0].vector, 0.3, 5).map((hit) => hit.key));
      expect(runs.count).toBe(1);
    });

    it('is skipped on small indexes', () => {
      const { entries, queries } = dataset(200, 60);
      const { runs, createKernel } = countingKernel();
      VectorIndex.build(entries, { createKernel }).search(queries[0], 0.3, 5);
      expect(runs.count).toBe(1);
    });
  });
});

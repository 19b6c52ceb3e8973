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
    ['WebAssembly SIMD', (rows: number, dimension: number) => new WasmDotProductKernel(rows, Math.ceil(dimension / 8) * 8)],
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
      const queries = Array.from({ length: 12 }, (_, index) => Float32Array.from(entries[(index * 97) % rows].vector, (value) => value + next() * 0.3));
      return { entries, queries };
    }

    function bruteForce(entries: Array<{ key: string; vector: Float32Array }>, query: Float32Array, minScore: number, limit: number) {
      const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, value) => sum + value * value, 0));
      return entries
        .map((entry, row) => ({ row, key: entry.key, score: entry.vector.reduce((sum, value, i) => sum + value * query[i], 0) / (norm(entry.vector) * norm(query)) }))
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
    ])('returns exactly the brute-force answer (minScore %s, top %s) without a full float32 scan', (minScore, limit) => {
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

import { VectorIndexInfo } from './arango-capabilities';
import { DEFAULT_VECTOR_EXACT_SCAN_BELOW, planVectorSearch } from './arango-vector-search.plan';

describe(planVectorSearch.name, () => {
  const index: VectorIndexInfo = {
    name: 'v',
    dimension: 1536,
    nLists: 400,
    defaultNProbe: 1,
    storedValues: ['graphKey', 'embeddingModel'],
  };

  it('scans a graph below the size exactly, whatever the index', () => {
    expect(DEFAULT_VECTOR_EXACT_SCAN_BELOW).toBe(5_000);
    expect(planVectorSearch(index, 4_999, 20)).toEqual({ mode: 'exact' });
    expect(planVectorSearch(index, 12, 20)).toEqual({ mode: 'exact' });
    expect(planVectorSearch(index, 40, 20, 50)).toEqual({ mode: 'exact' });
  });

  it('probes enough clusters that about four candidates per result fall in them, for the graph size', () => {
    // 400 lists, 20 results, 5,000 nodes: 400 × 4 × 20 / 5,000 = 6.4 → 7, but never under √400 = 20.
    expect(planVectorSearch(index, 5_000, 20)).toEqual({ mode: 'indexed', nProbe: 20 });
    // 400 × 4 × 50 / 6,000 = 13.3 → floor 20; with 100 results: 26.7 → 27.
    expect(planVectorSearch(index, 6_000, 100)).toEqual({ mode: 'indexed', nProbe: 27 });
    // A graph that is a small part of a large collection needs many more.
    expect(planVectorSearch({ ...index, nLists: 4_000 }, 5_000, 50)).toEqual({ mode: 'indexed', nProbe: 160 });
  });

  it('never probes fewer than the index default, nor more clusters than there are', () => {
    expect(planVectorSearch({ ...index, defaultNProbe: 64 }, 200_000, 10)).toEqual({ mode: 'indexed', nProbe: 64 });
    expect(planVectorSearch({ ...index, nLists: 30 }, 5_000, 2_000)).toEqual({ mode: 'indexed', nProbe: 30 });
  });

  it('probes a generous fixed number when the index does not say how many clusters it has', () => {
    expect(planVectorSearch({ ...index, nLists: null }, 10_000, 20)).toEqual({ mode: 'indexed', nProbe: 32 });
    expect(planVectorSearch({ ...index, nLists: null, defaultNProbe: 50 }, 10_000, 20)).toEqual({
      mode: 'indexed',
      nProbe: 50,
    });
  });
});

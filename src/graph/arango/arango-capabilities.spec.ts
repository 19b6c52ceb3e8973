import { compareVersions, detectVectorIndex } from './arango-capabilities';

describe('compareVersions', () => {
  it('compares numerically, part by part, ignoring pre-release suffixes', () => {
    expect(compareVersions('3.12.10', '3.12.6')).toBe(1);
    expect(compareVersions('3.11.14', '3.12.6')).toBe(-1);
    expect(compareVersions('3.12.6-rc1', '3.12.6')).toBe(0);
    expect(compareVersions('3.12', '3.12.0')).toBe(0);
  });
});

describe('detectVectorIndex', () => {
  const cosine = { type: 'vector', name: 'node_vectors', fields: ['embedding'], params: { metric: 'cosine', dimension: 1536, nLists: 100 } };

  it('uses a cosine vector index on `embedding` from 3.12.6 on', () => {
    expect(detectVectorIndex('3.12.6', [{ type: 'primary', fields: ['_key'] }, cosine])).toEqual({ name: 'node_vectors', dimension: 1536 });
  });

  it('ignores it on 3.12.4/3.12.5, where a FILTER cannot narrow the index lookup to one graph', () => {
    expect(detectVectorIndex('3.12.5', [cosine])).toBeNull();
    expect(detectVectorIndex('3.11.8', [cosine])).toBeNull();
  });

  it('ignores vector indexes of another metric or attribute, and other index types', () => {
    expect(detectVectorIndex('3.12.7', [{ ...cosine, params: { metric: 'l2', dimension: 3 } }])).toBeNull();
    expect(detectVectorIndex('3.12.7', [{ ...cosine, fields: ['vector'] }])).toBeNull();
    expect(detectVectorIndex('3.12.7', [{ type: 'inverted', fields: ['embedding'] }])).toBeNull();
  });
});

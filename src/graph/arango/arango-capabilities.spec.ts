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
  const cosine = {
    type: 'vector',
    name: 'node_vectors',
    fields: ['embedding'],
    storedValues: ['graphKey', 'embeddingModel'],
    params: { metric: 'cosine', dimension: 1536, nLists: 100, defaultNProbe: 10 },
  };

  it('uses a cosine vector index on `embedding` from 3.12.6 on, with what planning a search needs', () => {
    expect(detectVectorIndex('3.12.7', [{ type: 'primary', fields: ['_key'] }, cosine])).toEqual({
      vectorIndex: {
        name: 'node_vectors',
        dimension: 1536,
        nLists: 100,
        defaultNProbe: 10,
        storedValues: ['graphKey', 'embeddingModel'],
      },
      ignored: [],
    });
    expect(
      detectVectorIndex('3.12.6', [
        { ...cosine, storedValues: undefined, params: { metric: 'cosine', dimension: 8, nLists: 4 } },
      ]).vectorIndex,
    ).toEqual({
      name: 'node_vectors',
      dimension: 8,
      nLists: 4,
      defaultNProbe: 1,
      storedValues: [],
    });
  });

  it('uses it only once trained: trainingState "ready" when the server reports one (3.12.9+)', () => {
    expect(detectVectorIndex('3.12.9', [{ ...cosine, trainingState: 'ready' }]).vectorIndex?.name).toBe('node_vectors');
    for (const trainingState of ['unusable', 'training', 'ingesting']) {
      const detection = detectVectorIndex('3.12.9', [
        {
          ...cosine,
          trainingState,
          errorMessage: trainingState === 'unusable' ? 'not enough training data' : undefined,
        },
      ]);
      expect(detection.vectorIndex).toBeNull();
      expect(detection.ignored).toEqual([
        { name: 'node_vectors', reason: expect.stringContaining(`trainingState ${trainingState}`) },
      ]);
    }
    expect(
      detectVectorIndex('3.12.9', [{ ...cosine, trainingState: 'unusable', errorMessage: 'not enough training data' }])
        .ignored[0].reason,
    ).toContain('not enough training data');
  });

  it('ignores an index still being built, and takes the next usable one', () => {
    const building = { ...cosine, name: 'rebuilding', progress: 42 };
    expect(detectVectorIndex('3.12.7', [building])).toEqual({
      vectorIndex: null,
      ignored: [{ name: 'rebuilding', reason: 'still being built (42 %)' }],
    });
    expect(detectVectorIndex('3.12.7', [building, cosine]).vectorIndex?.name).toBe('node_vectors');
  });

  it('reads the trained number of centroids from the shards when nLists is a scaling rule (3.12.10+)', () => {
    const scaling = {
      ...cosine,
      params: { metric: 'cosine', dimension: 1536, nLists: { strategy: 'autoSqrt', multiplier: 4, minNLists: 2 } },
    };
    expect(
      detectVectorIndex('3.12.10', [{ ...scaling, shards: { nodius_nodes: { resolvedNLists: 160 } } }]).vectorIndex
        ?.nLists,
    ).toBe(160);
    expect(detectVectorIndex('3.12.10', [scaling]).vectorIndex?.nLists).toBeNull();
  });

  it('ignores it on 3.12.4/3.12.5, where a FILTER cannot narrow the index lookup to one graph', () => {
    expect(detectVectorIndex('3.12.5', [cosine])).toEqual({
      vectorIndex: null,
      ignored: [{ name: 'node_vectors', reason: expect.stringContaining('3.12.6+') }],
    });
    expect(detectVectorIndex('3.11.8', [cosine]).vectorIndex).toBeNull();
  });

  it('ignores vector indexes of another metric or attribute, and other index types', () => {
    expect(detectVectorIndex('3.12.7', [{ ...cosine, params: { metric: 'l2', dimension: 3 } }])).toEqual({
      vectorIndex: null,
      ignored: [],
    });
    expect(detectVectorIndex('3.12.7', [{ ...cosine, fields: ['vector'] }]).vectorIndex).toBeNull();
    expect(detectVectorIndex('3.12.7', [{ type: 'inverted', fields: ['embedding'] }]).vectorIndex).toBeNull();
  });
});

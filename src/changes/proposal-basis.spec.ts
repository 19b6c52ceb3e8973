import type { GraphEdge, GraphNode } from '../graph/graph.types';
import { GraphSnapshot } from './graph-snapshot';
import { emptyChanges } from './operation';
import { basisKeys, basisOf, changedSince, mergedBasis } from './proposal-basis';

const node = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  _key: key,
  graphKey: 'g',
  type: 'html',
  sheet: '0',
  posX: 0,
  posY: 0,
  ...extra,
});
const edge = (key: string, source: string, target: string): GraphEdge => ({
  _key: key,
  graphKey: 'g',
  sheet: '0',
  source,
  sourceHandle: 'R-0',
  target,
  targetHandle: 'L-0',
});
const deleteB = { ...emptyChanges('0'), nodeKeysToDelete: ['b'] };
const createC = { ...emptyChanges('0'), nodesToCreate: [node('c')], edgesToCreate: [edge('e9', 'a', 'c')] };
const view = (nodes: GraphNode[], edges: GraphEdge[], changes = deleteB) => {
  const basis = basisOf(
    changes,
    GraphSnapshot.of(
      'g',
      { nodes: new Set(['a', 'b', 'c']), edges: new Set(['e1', 'e9']), edgesOfNodes: new Set(['b']) },
      [node('a'), node('b')],
      [edge('e1', 'a', 'b')],
    ),
    '7',
  );
  return { basis, now: GraphSnapshot.of('g', basisKeys(basis, changes), nodes, edges) };
};

describe('a proposal basis', () => {
  it('holds every node and edge the change reads or touches: null for what must not exist yet', () => {
    const snapshot = GraphSnapshot.of(
      'g',
      { nodes: new Set(['a', 'b', 'c']), edges: new Set(['e9']), edgesOfNodes: new Set(['b']) },
      [node('a'), node('b')],
      [edge('e1', 'a', 'b')],
    );
    expect(basisOf(createC, snapshot, '7')).toEqual({
      graphRevision: '7',
      nodes: { a: expect.any(String), c: null },
      edges: { e9: null },
    });
    expect(basisOf(deleteB, snapshot, '7')).toEqual({
      graphRevision: '7',
      nodes: { b: expect.any(String) },
      edges: { e1: expect.any(String) },
    });
  });

  it('is not stale when only other parts of the graph changed', () => {
    const { basis, now } = view([node('a', { posX: 50 }), node('b')], [edge('e1', 'a', 'b')]);
    expect(changedSince(basis, deleteB, now)).toEqual([]);
  });

  it('lists what changed: a touched node modified, an edge that went, an edge that appeared on a deleted node', () => {
    const { basis, now } = view([node('a'), node('b', { posY: 9 })], [edge('e2', 'b', 'a')]);
    expect(changedSince(basis, deleteB, now)).toEqual([
      { kind: 'node', key: 'b', change: 'modified' },
      { kind: 'edge', key: 'e1', change: 'deleted' },
      { kind: 'edge', key: 'e2', change: 'created' },
    ]);
  });

  it('says created for a key that had to be absent', () => {
    const basis = basisOf(
      createC,
      GraphSnapshot.of(
        'g',
        { nodes: new Set(['a', 'c']), edges: new Set(['e9']), edgesOfNodes: new Set() },
        [node('a')],
        [],
      ),
      null,
    );
    const now = GraphSnapshot.of('g', basisKeys(basis, createC), [node('a'), node('c')], []);
    expect(changedSince(basis, createC, now)).toEqual([{ kind: 'node', key: 'c', change: 'created' }]);
  });

  it('merges the bases of several items', () => {
    expect(
      mergedBasis(
        [
          { graphRevision: null, nodes: { a: 'x' }, edges: {} },
          { graphRevision: null, nodes: { b: null }, edges: { e: 'y' } },
        ],
        '3',
      ),
    ).toEqual({
      graphRevision: '3',
      nodes: { a: 'x', b: null },
      edges: { e: 'y' },
    });
  });
});

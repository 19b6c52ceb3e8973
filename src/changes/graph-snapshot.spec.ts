import type { GraphEdge, GraphNode } from '../graph/graph.types';
import { changeSetBetween } from './change-set.diff';
import { fingerprintOf } from './document.fingerprint';
import { GraphSnapshot, keysOfChanges, unionKeys } from './graph-snapshot';
import { emptyChanges } from './operation';

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
const keys = { nodes: new Set(['a', 'b', 'c']), edges: new Set(['e1']), edgesOfNodes: new Set(['a', 'b', 'c']) };
const snapshot = () =>
  GraphSnapshot.of('g', keys, [node('a'), node('b', { data: { x: 1 }, process: 'return 1;' })], [edge('e1', 'a', 'b')]);

describe('fingerprintOf', () => {
  it('is the same whatever the key order and the vector fields, different for other content, null when absent', () => {
    expect(fingerprintOf({ a: 1, b: { c: 2, d: 3 } })).toBe(fingerprintOf({ b: { d: 3, c: 2 }, a: 1 }));
    expect(fingerprintOf(node('a', { embedding: [1, 2], embeddingModel: 'm' }))).toBe(fingerprintOf(node('a')));
    expect(fingerprintOf(node('a', { posX: 1 }))).not.toBe(fingerprintOf(node('a')));
    expect(fingerprintOf(null)).toBeNull();
    expect(fingerprintOf(node('a'))).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe(GraphSnapshot.name, () => {
  it('applies a change set as a store would, deleting a node with its edges', () => {
    const working = snapshot();
    working.apply({ ...emptyChanges('0'), nodeKeysToDelete: ['a'], nodesToCreate: [node('c')] });
    expect(working.node('a')).toBeNull();
    expect(working.edge('e1')).toBeNull();
    expect(working.edgesOf('b')).toEqual([]);
    expect(working.node('c')).toMatchObject({ _key: 'c' });
  });

  it('refuses what the planner refuses, and leaves its state as it was', () => {
    const working = snapshot();
    expect(() => working.apply({ ...emptyChanges('0'), nodesToCreate: [node('a')] })).toThrow(/already exists/);
    expect(() => working.apply({ ...emptyChanges('0'), edgesToCreate: [edge('e2', 'a', 'zz')] })).toThrow();
    expect(working.fingerprints()).toEqual(snapshot().fingerprints());
  });

  it('keys a change set by what it reads and writes', () => {
    const changes = {
      ...emptyChanges('0'),
      edgesToCreate: [edge('e2', 'a', 'c')],
      nodeKeysToDelete: ['b'],
      instructions: [{ nodeKey: 'a', op: 'set' as const, path: ['posX'], value: 1 }],
    };
    expect(keysOfChanges(changes)).toEqual({
      nodes: new Set(['b', 'a', 'c']),
      edges: new Set(['e2']),
      edgesOfNodes: new Set(['b']),
    });
    expect(
      unionKeys(keysOfChanges(changes), { nodes: new Set(['z']), edges: new Set(), edgesOfNodes: new Set() }).nodes.has(
        'z',
      ),
    ).toBe(true);
  });
});

describe(changeSetBetween.name, () => {
  it('gives the change set that turns one state into the other, fields unset where they were absent', () => {
    const before = snapshot();
    const after = before.clone();
    after.apply({
      ...emptyChanges('0'),
      nodesToCreate: [node('c')],
      nodeKeysToDelete: ['a'],
      instructions: [
        { nodeKey: 'b', op: 'set', path: ['data', 'x'], value: 2 },
        { nodeKey: 'b', op: 'set', path: ['size'], value: { width: 1, height: 1 } },
        { nodeKey: 'b', op: 'unset', path: ['process'] },
      ],
    });
    const inverse = changeSetBetween(after, before, keys, '0');
    expect(inverse).toEqual({
      ...emptyChanges('0'),
      nodesToCreate: [node('a')],
      nodeKeysToDelete: ['c'],
      edgesToCreate: [edge('e1', 'a', 'b')],
      instructions: [
        { nodeKey: 'b', op: 'set', path: ['data'], value: { x: 1 } },
        { nodeKey: 'b', op: 'set', path: ['process'], value: 'return 1;' },
        { nodeKey: 'b', op: 'unset', path: ['size'] },
      ],
    });
    after.apply(inverse);
    expect(after.fingerprints()).toEqual(before.fingerprints());
  });
});

import { GraphEdge, GraphNode } from '../graph.types';
import { planSavedChanges } from './saved-changes.planner';

const node = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  _key: key,
  graphKey: 'g',
  type: 'filter',
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

describe(planSavedChanges.name, () => {
  it('creates new nodes and replaces existing ones field by field, removing fields they no longer have', () => {
    const before = node('a', { process: 'old()', data: { x: 1 }, label: 'kept' });
    const after = node('a', { process: 'new()', posX: 5, label: 'kept' });
    const plan = planSavedChanges(
      { upsertNodes: [after, node('b')], deleteNodes: [], upsertEdges: [], deleteEdges: [] },
      new Map([['a', before]]),
      new Map(),
    );
    expect(plan.changes.nodesToCreate).toEqual([node('b')]);
    expect(plan.changes.instructions).toEqual([
      { nodeKey: 'a', op: 'set', path: ['posX'], value: 5 },
      { nodeKey: 'a', op: 'set', path: ['process'], value: 'new()' },
      { nodeKey: 'a', op: 'set', path: ['data'], value: undefined },
    ]);
    expect(plan.changedNodeKeys.sort()).toEqual(['a', 'b']);
  });

  it('does not count a moved or resized node as changed content', () => {
    const before = node('a', { process: 'same()' });
    const plan = planSavedChanges(
      {
        upsertNodes: [{ ...before, posX: 10, size: { width: 1, height: 2 } }],
        deleteNodes: [],
        upsertEdges: [],
        deleteEdges: [],
      },
      new Map([['a', before]]),
      new Map(),
    );
    expect(plan.changedNodeKeys).toEqual([]);
    expect(plan.changes.instructions.map((instruction) => instruction.path[0]).sort()).toEqual(['posX', 'size']);
  });

  it('deletes then re-creates an existing upserted edge, and skips deletions of keys the store never had', () => {
    const stored = edge('e1', 'a', 'b');
    const plan = planSavedChanges(
      {
        upsertNodes: [],
        deleteNodes: ['ghost', 'a'],
        upsertEdges: [{ ...stored, target: 'c' }, edge('e2', 'b', 'c')],
        deleteEdges: ['never'],
      },
      new Map([['a', node('a')]]),
      new Map([['e1', stored]]),
    );
    expect(plan.changes.nodeKeysToDelete).toEqual(['a']);
    expect(plan.changes.edgeKeysToDelete).toEqual(['e1']);
    expect(plan.changes.edgesToCreate.map((created) => created._key)).toEqual(['e1', 'e2']);
  });
});

import type { GraphEdge, GraphNode } from '../graph/graph.types';
import type { ActionConversionResult } from '../conversation/action-conversion-result';
import { changeSetBetween } from './change-set.diff';
import { fingerprintOf } from './document.fingerprint';
import { GraphSnapshot, keysOfChanges, unionKeys } from './graph-snapshot';
import { emptyChanges, OperationRecord, TouchedDocument } from './operation';
import { planRevert, revertKeys } from './revert.planner';

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
const ALL = { nodes: new Set(['a', 'b', 'c']), edges: new Set(['e1', 'e2']), edgesOfNodes: new Set(['a', 'b', 'c']) };

/** An operation as OperationService records it: applied to `state`, with its inverse and what it touched. */
function operate(state: GraphSnapshot, operationId: string, changes: ActionConversionResult): OperationRecord {
  const before = state.clone();
  state.apply(changes);
  const keys = unionKeys(keysOfChanges(changes), ALL);
  const touched: TouchedDocument[] = [];
  for (const key of keys.nodes) {
    const was = fingerprintOf(before.node(key));
    const is = fingerprintOf(state.node(key));
    if (was !== is) touched.push({ kind: 'node', key, before: was, after: is });
  }
  for (const key of keys.edges) {
    const was = fingerprintOf(before.edge(key));
    const is = fingerprintOf(state.edge(key));
    if (was !== is) touched.push({ kind: 'edge', key, before: was, after: is });
  }
  return {
    operationId,
    workspace: 'w',
    graphKey: 'g',
    threadId: 't',
    status: 'applied',
    actor: { userId: 'u', role: 'editor', via: 'autonomous' },
    appliedTime: 1,
    changes,
    inverse: changeSetBetween(state, before, keys, '0'),
    touched,
    outcome: {},
  };
}

const start = () => GraphSnapshot.of('g', ALL, [node('a'), node('b')], [edge('e1', 'a', 'b')]);

describe(planRevert.name, () => {
  it('puts back exactly what the operation changed when nobody changed it since', () => {
    const state = start();
    const operation = operate(state, 'op1', {
      ...emptyChanges('0'),
      nodesToCreate: [node('c')],
      edgesToCreate: [edge('e2', 'b', 'c')],
      nodeKeysToDelete: ['a'],
      instructions: [{ nodeKey: 'b', op: 'set', path: ['data'], value: { x: 1 } }],
    });
    const plan = planRevert(operation, state, new Set());
    expect(plan.refused).toEqual([]);
    expect(state.fingerprints()).toEqual(start().fingerprints());
    expect(revertKeys([operation]).nodes).toEqual(new Set(['a', 'b', 'c']));
  });

  it('refuses a part someone changed since, and what depends on it, and reverts the rest', () => {
    const state = start();
    const operation = operate(state, 'op1', {
      ...emptyChanges('0'),
      nodesToCreate: [node('c')],
      edgesToCreate: [edge('e2', 'b', 'c')],
      instructions: [{ nodeKey: 'b', op: 'set', path: ['posX'], value: 100 }],
    });
    // A human moves the new edge's end: the edge changed, so the node it hangs on cannot be deleted either.
    state.apply({
      ...emptyChanges('0'),
      edgeKeysToDelete: ['e2'],
      edgesToCreate: [{ ...edge('e2', 'b', 'c'), label: 'mine' }],
    });
    const plan = planRevert(operation, state, new Set());
    expect(plan.refused).toEqual([
      { kind: 'edge', key: 'e2', reason: 'changed_since', operationId: 'op1' },
      { kind: 'node', key: 'c', reason: 'depends_on_refused', operationId: 'op1' },
    ]);
    expect(state.node('b')?.posX).toBe(0);
    expect(state.node('c')).not.toBeNull();
    expect(state.edge('e2')?.label).toBe('mine');
  });

  it('never overwrites a live edit, and refuses an edge whose end was deleted since', () => {
    const state = start();
    const operation = operate(state, 'op1', {
      ...emptyChanges('0'),
      edgeKeysToDelete: ['e1'],
      instructions: [{ nodeKey: 'b', op: 'set', path: ['posX'], value: 100 }],
    });
    state.apply({ ...emptyChanges('0'), nodeKeysToDelete: ['a'] });
    const plan = planRevert(operation, state, new Set(['node:b']));
    expect(plan.refused).toEqual([
      { kind: 'node', key: 'b', reason: 'changed_since', operationId: 'op1' },
      { kind: 'edge', key: 'e1', reason: 'changed_since', operationId: 'op1' },
    ]);
    expect(state.node('b')?.posX).toBe(100);
  });

  it('refuses deleting a node that got a new edge since', () => {
    const state = start();
    const operation = operate(state, 'op1', { ...emptyChanges('0'), nodesToCreate: [node('c')] });
    state.apply({ ...emptyChanges('0'), edgesToCreate: [edge('e2', 'a', 'c')] });
    expect(planRevert(operation, state, new Set()).refused).toEqual([
      { kind: 'node', key: 'c', reason: 'changed_since', operationId: 'op1' },
    ]);
  });

  it('reverts a series newest first, each against what the newer ones left', () => {
    const state = start();
    const first = operate(state, 'op1', { ...emptyChanges('0'), nodesToCreate: [node('c')] });
    const second = operate(state, 'op2', {
      ...emptyChanges('0'),
      instructions: [{ nodeKey: 'c', op: 'set', path: ['posX'], value: 7 }],
    });
    expect(planRevert(second, state, new Set()).refused).toEqual([]);
    expect(planRevert(first, state, new Set()).refused).toEqual([]);
    expect(state.fingerprints()).toEqual(start().fingerprints());
  });
});

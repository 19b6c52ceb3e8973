import { plainNode } from '../../test/support/plain-graph-parts';
import { AppError } from '../errors/app-error';
import { GraphChangeSet } from './graph-change-set';
import { GraphChangeLookup, GraphChangePlanner } from './graph-change.planner';
import { GraphEdge, GraphNode } from './graph.types';

const node = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({ ...plainNode(key), ...extra });
const edge = (key: string, source: string, target: string): GraphEdge => ({
  _key: key,
  graphKey: 'g',
  sheet: '0',
  source,
  sourceHandle: 'out',
  target,
  targetHandle: 'in',
});

function lookupOf(nodes: GraphNode[], edges: GraphEdge[]): GraphChangeLookup {
  return {
    getNode: (key) => nodes.find((candidate) => candidate._key === key) ?? null,
    getEdge: (key) => edges.find((candidate) => candidate._key === key) ?? null,
  };
}

const changes = (partial: Partial<GraphChangeSet>): GraphChangeSet => ({
  instructions: [],
  nodesToCreate: [],
  edgesToCreate: [],
  nodeKeysToDelete: [],
  edgeKeysToDelete: [],
  ...partial,
});

function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe(GraphChangePlanner.name, () => {
  const planner = new GraphChangePlanner();
  const lookup = lookupOf([node('a'), node('b', { data: { x: 1 } })], [edge('a-b', 'a', 'b')]);

  it('plans creations with the graph key, instructions as before/after pairs, and deletions', () => {
    const plan = planner.plan(
      'g',
      changes({
        nodesToCreate: [node('c', { graphKey: 'other' })],
        edgesToCreate: [edge('b-c', 'b', 'c')],
        instructions: [
          { nodeKey: 'b', op: 'set', path: ['data', 'y', 'z'], value: 2 },
          { nodeKey: 'b', op: 'set', path: ['posX'], value: 10 },
          { nodeKey: 'c', op: 'set', path: ['data', 'label'], value: 'new' },
        ],
        edgeKeysToDelete: ['a-b'],
      }),
      lookup,
    );
    expect(plan.nodesToCreate).toEqual([node('c', { data: { label: 'new' } })]);
    expect(plan.edgesToCreate).toEqual([edge('b-c', 'b', 'c')]);
    expect(plan.edgeKeysToDelete).toEqual(['a-b']);
    expect(plan.nodesToUpdate).toHaveLength(1);
    expect(plan.nodesToUpdate[0].before).toEqual(node('b', { data: { x: 1 } }));
    expect(plan.nodesToUpdate[0].after).toEqual(node('b', { data: { x: 1, y: { z: 2 } }, posX: 10 }));
  });

  it('removes a field with an unset instruction (an inverse putting back a node that had none), refusing reserved fields', () => {
    const plan = planner.plan(
      'g',
      changes({
        instructions: [
          { nodeKey: 'b', op: 'unset', path: ['data'] },
          { nodeKey: 'a', op: 'unset', path: ['data', 'missing'] },
        ],
      }),
      lookup,
    );
    expect(plan.nodesToUpdate.map(({ after }) => after)).toEqual([node('b'), node('a')]);
    expect(
      errorOf(() =>
        planner.plan('g', changes({ instructions: [{ nodeKey: 'a', op: 'unset', path: ['_key'] }] }), lookup),
      ).code,
    ).toBe('bad_request');
  });

  it('names the missing node or edge', () => {
    expect(errorOf(() => planner.plan('g', changes({ nodeKeysToDelete: ['ghost'] }), lookup))).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('"ghost"'),
    });
    expect(errorOf(() => planner.plan('g', changes({ edgeKeysToDelete: ['nope'] }), lookup))).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('"nope"'),
    });
    const instruction = { nodeKey: 'ghost', op: 'set' as const, path: ['posX'], value: 1 };
    expect(errorOf(() => planner.plan('g', changes({ instructions: [instruction] }), lookup)).code).toBe('not_found');
  });

  it('refuses an instruction on a node the same set deletes', () => {
    const set = changes({
      nodeKeysToDelete: ['a'],
      instructions: [{ nodeKey: 'a', op: 'set', path: ['posX'], value: 1 }],
    });
    expect(errorOf(() => planner.plan('g', set, lookup)).code).toBe('not_found');
  });

  it('reports duplicate creations as conflicts, but allows delete-then-recreate', () => {
    expect(errorOf(() => planner.plan('g', changes({ nodesToCreate: [node('a')] }), lookup)).code).toBe('conflict');
    expect(errorOf(() => planner.plan('g', changes({ nodesToCreate: [node('c'), node('c')] }), lookup)).code).toBe(
      'conflict',
    );
    expect(errorOf(() => planner.plan('g', changes({ edgesToCreate: [edge('a-b', 'a', 'b')] }), lookup)).code).toBe(
      'conflict',
    );
    expect(
      planner.plan('g', changes({ nodeKeysToDelete: ['a'], nodesToCreate: [node('a', { type: 'new' })] }), lookup)
        .nodesToCreate,
    ).toHaveLength(1);
    // The existing a-b edge goes with node a, so its key is free again.
    expect(
      planner.plan(
        'g',
        changes({ nodeKeysToDelete: ['a'], nodesToCreate: [node('a2')], edgesToCreate: [edge('a-b', 'a2', 'b')] }),
        lookup,
      ).edgesToCreate,
    ).toHaveLength(1);
  });

  it('refuses an edge that would dangle after the change set', () => {
    const dangling = errorOf(() => planner.plan('g', changes({ edgesToCreate: [edge('x', 'a', 'ghost')] }), lookup));
    expect(dangling).toMatchObject({ code: 'bad_request', message: expect.stringContaining('"ghost"') });
    const toDeleted = changes({ nodeKeysToDelete: ['b'], edgesToCreate: [edge('x', 'a', 'b')] });
    expect(errorOf(() => planner.plan('g', toDeleted, lookup)).code).toBe('bad_request');
  });

  it('refuses changes to identity fields and nodes left without type or sheet', () => {
    expect(
      errorOf(() =>
        planner.plan('g', changes({ instructions: [{ nodeKey: 'a', op: 'set', path: ['_key'], value: 'z' }] }), lookup),
      ).code,
    ).toBe('bad_request');
    expect(
      errorOf(() =>
        planner.plan('g', changes({ instructions: [{ nodeKey: 'a', op: 'set', path: ['type'], value: 3 }] }), lookup),
      ).code,
    ).toBe('bad_request');
    expect(errorOf(() => planner.plan('g', changes({ nodesToCreate: [node('c', { sheet: '' })] }), lookup)).code).toBe(
      'bad_request',
    );
  });
});

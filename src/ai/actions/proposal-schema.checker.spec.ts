import type { ProposedAction } from '../../conversation/proposed-action';
import type { GraphDataSource } from '../../graph/graph-data-source';
import type { GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import { ProposalSchemaChecker } from './proposal-schema.checker';

const configs: NodeTypeConfig[] = [
  {
    _key: 'threshold',
    workspace: 'w',
    displayName: 'Threshold',
    dataSchema: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 0 } },
      required: ['limit'],
      additionalProperties: false,
    },
  },
  { _key: 'odd', workspace: 'w', displayName: 'Odd', dataSchema: { type: 'object', format: 'weird' } },
  { _key: 'free', workspace: 'w', displayName: 'Free' },
];
const nodes = [
  { _key: 'a', type: 'free', data: { n: 1 } },
  { _key: 'b', type: 'free', data: { n: 2 } },
] as GraphNode[];
const dataSource = {
  getNodeConfigs: async () => configs,
  getNodes: async () => nodes,
} as unknown as GraphDataSource;

const create = (typeKey: string, data?: unknown, nodeKey?: string): ProposedAction => ({
  type: 'create_node',
  payload: {
    typeKey,
    sheet: '0',
    posX: 0,
    posY: 0,
    ...(nodeKey ? { nodeKey } : {}),
    ...(data !== undefined ? { data } : {}),
  },
  reason: 'r',
});

describe(ProposalSchemaChecker.name, () => {
  it('checks created nodes against a declared schema, inside batches too', async () => {
    const checker = new ProposalSchemaChecker(dataSource, 'g', new Set());
    expect(await checker.problems(create('threshold', { limit: 3 }))).toEqual([]);
    const batch: ProposedAction = {
      type: 'batch',
      payload: { actions: [create('threshold', { limit: -1, extra: true }, 'gate')] },
      reason: 'r',
    };
    const [problem] = await checker.problems(batch);
    expect(problem).toMatch(/^The new node "gate" of type "threshold": /);
    expect(problem).toContain('data.limit must be >= 0');
    expect(problem).toContain('data.extra');
  });

  it('uses an inferred schema only for the types a create block named, and skips what it cannot check', async () => {
    expect(await new ProposalSchemaChecker(dataSource, 'g', new Set()).problems(create('free', { n: 'x' }))).toEqual(
      [],
    );
    const named = new ProposalSchemaChecker(dataSource, 'g', new Set(['free']));
    expect(await named.problems(create('free', { n: 'x' }))).toEqual([
      'The new node of type "free": data.n must be a number, got string "x".',
    ]);
    // Both nodes have n: a node without it is refused; without data, nothing is checked (the type's defaults apply).
    expect(await named.problems(create('free', {}))).toHaveLength(1);
    expect(await named.problems(create('free'))).toEqual([]);
    // A declared schema outside the validator's subset is not enforced.
    expect(await named.problems(create('odd', 42))).toEqual([]);
  });
});

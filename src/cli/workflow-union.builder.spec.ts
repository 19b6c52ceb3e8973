import { GraphNode } from '../graph/graph.types';
import { buildWorkflowUnion, WorkflowFixture } from './workflow-union.builder';

const node = (key: string): GraphNode => ({ _key: key, graphKey: 'w', type: 'code', sheet: '0', posX: 0, posY: 0 });
const workflow = (key: string, name: string, keys: string[]): WorkflowFixture => ({
  graph: { _key: key, name },
  nodes: keys.map(node),
  edges: keys.slice(1).map((target, index) => ({
    _key: `${keys[index]}--${target}`,
    graphKey: key,
    sheet: '0',
    source: keys[index],
    sourceHandle: '0',
    target,
    targetHandle: '0',
  })),
  nodeConfigs: [{ _key: 'code', workspace: 'x', displayName: 'Code' }],
});

describe(buildWorkflowUnion.name, () => {
  it('puts each workflow on its own sheet named after it, keys prefixed, until the node count, cutting the last one and its edges', () => {
    const union = buildWorkflowUnion(
      [workflow('a', 'Alpha', ['n1', 'n2']), workflow('b', 'Beta', ['m1', 'm2', 'm3'])],
      {
        nodeCount: 4,
        graphKey: 'u',
        workspace: 'ws',
        name: 'Union',
      },
    );
    const { graph, nodes, edges, nodeConfigs } = union.document;
    expect(graph).toMatchObject({
      _key: 'u',
      workspace: 'ws',
      name: 'Union',
      sheetsList: { '0': 'Alpha', '1': 'Beta' },
    });
    expect(nodes.map((entry) => `${entry.sheet}:${entry._key}`)).toEqual(['0:s0-n1', '0:s0-n2', '1:s1-m1', '1:s1-m2']);
    expect(nodes.every((entry) => entry.graphKey === 'u')).toBe(true);
    expect(edges.map((edge) => `${edge.source}>${edge.target}`)).toEqual(['s0-n1>s0-n2', 's1-m1>s1-m2']);
    expect(union.sheets).toEqual([
      { sheet: '0', prefix: 's0-', workflowKey: 'a', name: 'Alpha' },
      { sheet: '1', prefix: 's1-', workflowKey: 'b', name: 'Beta' },
    ]);
    expect(nodeConfigs).toEqual([{ _key: 'code', workspace: 'ws', displayName: 'Code' }]);
  });

  it('reuses the workflows with new prefixes when they hold fewer nodes than asked', () => {
    const union = buildWorkflowUnion([workflow('a', 'Alpha', ['n1', 'n2'])], {
      nodeCount: 5,
      graphKey: 'u',
      workspace: 'ws',
      name: 'U',
    });
    expect(union.document.nodes.map((entry) => entry._key)).toEqual(['s0-n1', 's0-n2', 's1-n1', 's1-n2', 's2-n1']);
  });
});

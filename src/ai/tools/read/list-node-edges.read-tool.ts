import { EdgeDirection } from '../../../graph/graph-data-source';
import { defineReadTool } from './read-tool';
import { DIRECTION_ARGUMENT, NODE_KEY_ARGUMENT } from './read-tool.arguments';
import { edgeView } from './read-tool.views';
import { ToolInputError } from './tool-input.error';

interface ListNodeEdgesArguments {
  nodeKey: string;
  direction?: EdgeDirection;
}

export const listNodeEdgesTool = defineReadTool<ListNodeEdgesArguments>()({
  name: 'list_node_edges',
  description:
    'The edges of one node (incoming, outgoing or both), each written "node:handle" to "node:handle" with its label.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeKey'],
    properties: { nodeKey: NODE_KEY_ARGUMENT, direction: DIRECTION_ARGUMENT },
  },
  async execute({ nodeKey, direction = 'any' }, context) {
    await context.graph();
    const node = await context.dataSource.getNodeByKey(context.graphKey, nodeKey);
    if (!node) throw ToolInputError.unknownNode(nodeKey, context.texts);
    const edges = await context.dataSource.getEdgesOfNode(context.graphKey, nodeKey, direction);
    const listed = edges.slice(0, context.limits.maxListedEdges);
    return {
      nodeKey,
      direction,
      count: edges.length,
      edges: listed.map((edge) => ({ ...edgeView(edge), direction: edge.source === nodeKey ? 'out' : 'in' })),
      ...(edges.length > listed.length ? { moreEdges: edges.length - listed.length } : {}),
    };
  },
});

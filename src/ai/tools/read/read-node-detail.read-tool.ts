import { isBuiltInNodeType } from '../../../graph/built-in-node-types';
import { formatHandles, summarizeHandles } from '../../../rag/handle-summary';
import { truncate } from '../../../rag/text-truncation';
import { defineReadTool } from './read-tool';
import { NODE_KEY_ARGUMENT } from './read-tool.arguments';
import { dataDetail, edgeView, indexConfigsByType, processOf, sheetName, typeName } from './read-tool.views';
import { ToolInputError } from './tool-input.error';

interface ReadNodeDetailArguments {
  nodeKey: string;
}

export const readNodeDetailTool = defineReadTool<ReadNodeDetailArguments>()({
  name: 'read_node_detail',
  description:
    'Everything about one node: type, sheet, position, its code (process), its data, its handles (side:type(accept)#id) and its incoming and outgoing edges.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeKey'],
    properties: { nodeKey: NODE_KEY_ARGUMENT },
  },
  async execute({ nodeKey }, context) {
    const { dataSource, graphKey, limits } = context;
    const graph = await context.graph();
    const node = await dataSource.getNodeByKey(graphKey, nodeKey);
    if (!node) throw ToolInputError.unknownNode(nodeKey, context.texts);
    const [incoming, outgoing, configs] = await Promise.all([
      dataSource.getEdgesOfNode(graphKey, nodeKey, 'in'),
      dataSource.getEdgesOfNode(graphKey, nodeKey, 'out'),
      dataSource.getNodeConfigs(),
    ]);
    const process = processOf(node);
    return {
      key: node._key,
      type: node.type,
      ...typeName(node.type, indexConfigsByType(configs)),
      ...(isBuiltInNodeType(node.type) ? { builtIn: true } : {}),
      sheet: node.sheet,
      sheetName: sheetName(graph, node.sheet),
      position: { x: node.posX, y: node.posY },
      ...(node.size ? { size: node.size } : {}),
      process: truncate(process, limits.detailProcessChars),
      ...(process.length > limits.detailProcessChars ? { processLength: process.length } : {}),
      ...dataDetail(node.data, limits.detailDataChars),
      handles: formatHandles(summarizeHandles(node.handles), { withIds: true }),
      incomingEdges: incoming.slice(0, limits.maxListedEdges).map(edgeView),
      outgoingEdges: outgoing.slice(0, limits.maxListedEdges).map(edgeView),
    };
  },
});

import { isBuiltInNodeType } from '../../../graph/built-in-node-types';
import { truncate } from '../../../rag/text-truncation';
import { defineReadTool } from './read-tool';
import { ToolInputError } from './tool-input.error';
import { indexConfigsByType } from './read-tool.views';

interface ReadGraphOverviewArguments {
  graphKey?: string;
}

export const readGraphOverviewTool = defineReadTool<ReadGraphOverviewArguments>()({
  name: 'read_graph_overview',
  description:
    'Overview of the current graph: name, description, sheets with their node and edge counts, and how many nodes of each type. Start here for questions about the whole workflow.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    properties: {
      graphKey: {
        type: 'string',
        description: 'Key of the current graph (optional: the tool always reads the graph of this conversation).',
      },
    },
  },
  async execute({ graphKey }, context) {
    if (graphKey !== undefined && graphKey !== context.graphKey) {
      throw new ToolInputError(context.texts.otherGraph(context.graphKey));
    }
    const graph = await context.graph();
    const [nodes, edges, configs] = await Promise.all([
      context.dataSource.getNodes(context.graphKey),
      context.dataSource.getEdges(context.graphKey),
      context.dataSource.getNodeConfigs(),
    ]);
    const sheetIds = new Set([...Object.keys(graph.sheetsList ?? {}), ...nodes.map((node) => node.sheet)]);
    const typeCounts = new Map<string, number>();
    for (const node of nodes) typeCounts.set(node.type, (typeCounts.get(node.type) ?? 0) + 1);
    const configsByType = indexConfigsByType(configs);
    return {
      graph: {
        key: graph._key,
        name: graph.name,
        ...(graph.description ? { description: truncate(graph.description, 1_000) } : {}),
        ...(graph.category ? { category: graph.category } : {}),
      },
      totals: { nodes: nodes.length, edges: edges.length },
      sheets: [...sheetIds].map((id) => ({
        id,
        name: graph.sheetsList?.[id] ?? id,
        nodes: nodes.filter((node) => node.sheet === id).length,
        edges: edges.filter((edge) => edge.sheet === id).length,
      })),
      nodeTypes: [...typeCounts.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([type, count]) => ({
          type,
          ...(configsByType.get(type)?.displayName ? { displayName: configsByType.get(type)?.displayName } : {}),
          ...(isBuiltInNodeType(type) ? { builtIn: true } : {}),
          count,
        })),
    };
  },
});

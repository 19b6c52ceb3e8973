import { EdgeDirection } from '../../../graph/graph-data-source';
import { distancesFrom } from '../../../rag/graph-distance';
import { defineReadTool } from './read-tool';
import { DIRECTION_ARGUMENT, NODE_KEY_ARGUMENT } from './read-tool.arguments';
import { edgeView, indexConfigsByType, sheetName, typeName } from './read-tool.views';
import { ToolInputError } from './tool-input.error';

interface ExploreNeighborhoodArguments {
  nodeKey: string;
  maxDepth?: number;
  direction?: EdgeDirection;
}

export const exploreNeighborhoodTool = defineReadTool<ExploreNeighborhoodArguments>()({
  name: 'explore_neighborhood',
  description:
    "The nodes around a node, up to maxDepth hops (1-3), following edges in the given direction, with the edges between them and each node's distance. Use it to follow the data flow.",
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeKey'],
    properties: {
      nodeKey: NODE_KEY_ARGUMENT,
      maxDepth: { type: 'integer', minimum: 1, maximum: 3, description: 'How many hops to follow (1-3). Default 2.' },
      direction: DIRECTION_ARGUMENT,
    },
  },
  async execute({ nodeKey, maxDepth = 2, direction = 'any' }, context) {
    const graph = await context.graph();
    const neighborhood = await context.dataSource.getNeighborhood(context.graphKey, nodeKey, maxDepth, direction);
    if (neighborhood.nodes.length === 0) throw ToolInputError.unknownNode(nodeKey, context.texts);
    const distances = distancesFrom(nodeKey, neighborhood.edges, direction);
    const configsByType = indexConfigsByType(await context.dataSource.getNodeConfigs());
    const nodes = neighborhood.nodes
      .map((node, order) => ({ node, order, distance: distances.get(node._key) ?? maxDepth }))
      .sort((a, b) => a.distance - b.distance || a.order - b.order);
    const listed = nodes.slice(0, context.limits.maxNeighborhoodNodes);
    const listedKeys = new Set(listed.map((entry) => entry.node._key));
    return {
      nodeKey,
      maxDepth,
      direction,
      nodes: listed.map(({ node, distance }) => ({
        key: node._key,
        type: node.type,
        ...typeName(node.type, configsByType),
        sheet: sheetName(graph, node.sheet),
        distance,
      })),
      edges: neighborhood.edges
        .filter((edge) => listedKeys.has(edge.source) && listedKeys.has(edge.target))
        .map(edgeView),
      ...(nodes.length > listed.length
        ? { moreNodes: nodes.length - listed.length, hint: context.texts.tooManyNeighbours }
        : {}),
    };
  },
});

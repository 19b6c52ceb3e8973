import { GraphDataSource } from './graph-data-source';
import { GraphDocument, GraphNode } from './graph.types';

/**
 * The export of one graph as its data source sees it (so a live overlay, when there is one, is
 * included): the graph, its nodes without embedding fields, its edges, and the workspace's node
 * configs for the types its nodes use, which makes the document importable as is elsewhere.
 * Null when the graph does not exist in the data source's workspace.
 */
export async function exportGraphDocument(source: GraphDataSource, graphKey: string): Promise<GraphDocument | null> {
  const graph = await source.getGraph(graphKey);
  if (!graph) return null;
  const [nodes, edges, configs] = await Promise.all([
    source.getNodes(graphKey),
    source.getEdges(graphKey),
    source.getNodeConfigs(),
  ]);
  const usedTypes = new Set(nodes.map((node) => node.type));
  return {
    graph,
    nodes: nodes.map(withoutEmbedding),
    edges,
    nodeConfigs: configs.filter((config) => usedTypes.has(config._key)),
  };
}

function withoutEmbedding(node: GraphNode): GraphNode {
  const { embedding: _embedding, embeddingModel: _model, embeddingHash: _hash, ...rest } = node;
  return rest as GraphNode;
}

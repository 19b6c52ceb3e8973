import { AppError } from '../../errors/app-error';
import { GraphDataSource } from '../../graph/graph-data-source';
import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import { GraphRAGContext, NodeTypeConfigSummary } from '../../conversation/graph-rag-context';
import { summarizeGraph } from '../../rag/graph-summary';
import { summarizeNodeTypeConfig } from '../../rag/node-type-config-summary';

/** How big a graph is, in all and per sheet (prompt level 3, the graph's state). */
export interface GraphCounts {
  nodes: number;
  edges: number;
  /** sheetId → its nodes and edges. */
  sheets: Record<string, { nodes: number; edges: number }>;
}

/**
 * What the stable prompt levels are built from: the graph, its size,
 * and the workspace's custom types. Deliberately not the per-question RAG context (whose configs
 * depend on the question): the levels must stay byte-identical across the questions of a
 * conversation, as long as the graph does not change, to be prompt-cached.
 */
export interface SystemPromptContext {
  graph: GraphRAGContext['graph'];
  nodeTypeConfigs: NodeTypeConfigSummary[];
  /** Absent: the graph state says nothing of the graph's size. */
  counts?: GraphCounts;
}

/** Loads the graph, its size and every custom type of the workspace; not_found when the graph is absent. */
export async function loadSystemPromptContext(
  dataSource: GraphDataSource,
  graphKey: string,
): Promise<SystemPromptContext> {
  const [graph, configs, nodes, edges] = await Promise.all([
    dataSource.getGraph(graphKey),
    dataSource.getNodeConfigs(),
    dataSource.getNodes(graphKey),
    dataSource.getEdges(graphKey),
  ]);
  if (!graph) throw AppError.notFound(`Graph "${graphKey}" not found`);
  return { ...systemPromptContextOf(graph, configs), counts: countGraph(graph, nodes, edges) };
}

/** The prompt's view of a graph document and the workspace's node configs. */
export function systemPromptContextOf(graph: Graph, configs: readonly NodeTypeConfig[]): SystemPromptContext {
  return {
    graph: summarizeGraph(graph),
    nodeTypeConfigs: configs.map(summarizeNodeTypeConfig),
  };
}

/** Nodes and edges in all and per sheet (the graph's sheets first, in their order, then any other sheet a node names). */
export function countGraph(
  graph: Graph,
  nodes: readonly Pick<GraphNode, 'sheet'>[],
  edges: readonly Pick<GraphEdge, 'sheet'>[],
): GraphCounts {
  const sheets: GraphCounts['sheets'] = {};
  for (const id of Object.keys(graph.sheetsList ?? {})) sheets[id] = { nodes: 0, edges: 0 };
  for (const node of nodes) (sheets[node.sheet] ??= { nodes: 0, edges: 0 }).nodes += 1;
  for (const edge of edges) (sheets[edge.sheet] ??= { nodes: 0, edges: 0 }).edges += 1;
  return { nodes: nodes.length, edges: edges.length, sheets };
}

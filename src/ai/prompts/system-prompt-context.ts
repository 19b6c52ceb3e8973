import { AppError } from '../../errors/app-error';
import { GraphDataSource } from '../../graph/graph-data-source';
import { Graph, NodeTypeConfig } from '../../graph/graph.types';
import { GraphRAGContext, NodeTypeConfigSummary } from '../../conversation/graph-rag-context';
import { summarizeGraph } from '../../rag/graph-summary';
import { summarizeNodeTypeConfig } from '../../rag/node-type-config-summary';

/**
 * What the system prompt is built from: the graph and the workspace's custom types. Deliberately not
 * the per-question RAG context (whose configs depend on the question): the prompt must stay
 * byte-identical across the questions of a conversation to be prompt-cached.
 */
export interface SystemPromptContext {
  graph: GraphRAGContext['graph'];
  nodeTypeConfigs: NodeTypeConfigSummary[];
}

/** Loads the graph and every custom type of the workspace; not_found when the graph is absent. */
export async function loadSystemPromptContext(dataSource: GraphDataSource, graphKey: string): Promise<SystemPromptContext> {
  const [graph, configs] = await Promise.all([dataSource.getGraph(graphKey), dataSource.getNodeConfigs()]);
  if (!graph) throw AppError.notFound(`Graph "${graphKey}" not found`);
  return systemPromptContextOf(graph, configs);
}

/** The prompt's view of a graph document and the workspace's node configs. */
export function systemPromptContextOf(graph: Graph, configs: readonly NodeTypeConfig[]): SystemPromptContext {
  return {
    graph: summarizeGraph(graph),
    nodeTypeConfigs: configs.map(summarizeNodeTypeConfig),
  };
}

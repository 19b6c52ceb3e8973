import { Graph } from '../graph/graph.types';
import { GraphRAGContext } from '../conversation/graph-rag-context';

/**
 * The graph as the model is told about it: key, name, description and sheet names. Its `metadata` is
 * left to the caller: the retrieved context carries it, the system prompt (which must stay
 * byte-identical to be cached) does not.
 */
export function summarizeGraph(graph: Graph): GraphRAGContext['graph'] {
  return {
    _key: graph._key,
    name: graph.name,
    ...(graph.description ? { description: graph.description } : {}),
    sheets: { ...(graph.sheetsList ?? {}) },
  };
}

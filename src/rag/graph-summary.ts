import { deepFreeze } from '../graph/deep-freeze';
import { Graph } from '../graph/graph.types';
import { GraphRAGContext } from '../conversation/graph-rag-context';

/**
 * Summaries of frozen graph documents (the stores share one per revision): a graph of 1,500 sheets
 * took most of a millisecond to summarize, per question.
 */
const summaries = new WeakMap<Graph, GraphRAGContext['graph']>();

/**
 * The graph as the model is told about it: key, name, description and sheet names. Its `metadata` is
 * left to the caller: the retrieved context carries it, the system prompt (which must stay
 * byte-identical to be cached) does not. The summary of a frozen graph is frozen and shared.
 */
export function summarizeGraph(graph: Graph): GraphRAGContext['graph'] {
  if (!Object.isFrozen(graph)) return summaryOf(graph);
  let summary = summaries.get(graph);
  if (!summary) {
    summary = deepFreeze(summaryOf(graph));
    summaries.set(graph, summary);
  }
  return summary;
}

function summaryOf(graph: Graph): GraphRAGContext['graph'] {
  return {
    _key: graph._key,
    name: graph.name,
    ...(graph.description ? { description: graph.description } : {}),
    sheets: { ...(graph.sheetsList ?? {}) },
  };
}

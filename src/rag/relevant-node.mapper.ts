import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../graph/graph.types';
import { RelevantEdge, RelevantNode } from '../conversation/graph-rag-context';
import { summarizeHandles } from './handle-summary';
import { summarizeData, truncate } from './text-truncation';

export interface RelevantNodeLimits {
  truncateProcess: number;
  truncateData: number;
}

/** Condenses a node for the context: truncated process/data, sheet and type resolved to names. */
export function toRelevantNode(
  node: GraphNode,
  graph: Graph,
  configsByType: ReadonlyMap<string, NodeTypeConfig>,
  limits: RelevantNodeLimits,
  origin: RelevantNode['origin'],
  score?: number,
): RelevantNode {
  return {
    _key: node._key,
    type: node.type,
    typeName: configsByType.get(node.type)?.displayName || node.type,
    sheet: node.sheet,
    sheetName: graph.sheetsList?.[node.sheet] ?? node.sheet,
    process: truncate(typeof node.process === 'string' ? node.process : '', limits.truncateProcess),
    handles: summarizeHandles(node.handles),
    dataSummary: summarizeData(node.data, limits.truncateData),
    origin,
    ...(score !== undefined ? { score } : {}),
  };
}

export function toRelevantEdge(edge: GraphEdge): RelevantEdge {
  return {
    _key: edge._key,
    sheet: edge.sheet,
    source: edge.source,
    sourceHandle: edge.sourceHandle,
    target: edge.target,
    targetHandle: edge.targetHandle,
    ...(edge.label ? { label: edge.label } : {}),
  };
}

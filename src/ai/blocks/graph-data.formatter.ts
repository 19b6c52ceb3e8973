import type { Locale } from '../../config/app-config';
import { BUILT_IN_NODE_TYPE_DESCRIPTIONS, isBuiltInNodeType } from '../../graph/built-in-node-types';
import type { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import { formatHandles, summarizeHandles } from '../../rag/handle-summary';
import { summarizeData, truncate } from '../../rag/text-truncation';

/** The longest `data` JSON and `process` of one node's whole configuration (a block's or an always-sent node's). */
export const NODE_DATA_MAX_CHARS = 4000;
export const NODE_PROCESS_MAX_CHARS = 4000;

/**
 * The text forms of graph data the blocks load (level 4) and the always-sent data holds (level 2): the same node
 * reads the same in both, so de-duplication compares like with like. Deterministic: the same documents give the same
 * bytes (the stable levels stay cacheable).
 */

/** A node's whole configuration: type, sheet, handles (with their ids), size, data and process, each bounded. */
export function formatNodeConfiguration(node: GraphNode, graph: Graph): string {
  const lines = [`type: ${node.type}${node.typeVersion !== undefined ? ` (version ${String(node.typeVersion)})` : ''}`];
  lines.push(`sheet: ${node.sheet} (${graph.sheetsList?.[node.sheet] ?? node.sheet})`);
  const handles = formatHandles(summarizeHandles(node.handles), { withIds: true });
  if (handles) lines.push(`handles: ${handles}`);
  if (node.size) lines.push(`size: ${JSON.stringify(node.size)}`);
  const data = summarizeData(node.data, NODE_DATA_MAX_CHARS);
  lines.push(`data: ${data || '(none)'}`);
  const process = typeof node.process === 'string' ? node.process : '';
  lines.push(process ? `process:\n${truncate(process, NODE_PROCESS_MAX_CHARS)}` : 'process: (none)');
  return lines.join('\n');
}

/** A node type's configuration as the workspace stores it, or a built-in type's description. */
export function formatTypeConfiguration(
  nodeType: string,
  config: NodeTypeConfig | undefined,
  usedBy: number,
  locale: Locale,
): string {
  if (config) {
    const lines = [`displayName: ${config.displayName}`];
    if (config.category) lines.push(`category: ${config.category}`);
    if (config.description) lines.push(`description: ${truncate(config.description, 1000)}`);
    const handles = formatHandles(summarizeHandles(config.node?.handles), { withIds: true });
    if (handles) lines.push(`handles: ${handles}`);
    if (config.node?.size) lines.push(`size: ${JSON.stringify(config.node.size)}`);
    if (typeof config.node?.process === 'string' && config.node.process)
      lines.push(`process:\n${truncate(config.node.process, NODE_PROCESS_MAX_CHARS)}`);
    return lines.join('\n');
  }
  if (isBuiltInNodeType(nodeType)) {
    const description = BUILT_IN_NODE_TYPE_DESCRIPTIONS[nodeType];
    return `built-in type: ${description[locale] ?? description.en}\nhandles: ${description.handles}`;
  }
  return `no configuration in this workspace (used by ${usedBy} node${usedBy === 1 ? '' : 's'} of this graph)`;
}

/** One line per node: its key, sheet and data (truncated to `maxData` characters). */
export function formatNodesData(nodes: readonly GraphNode[], graph: Graph, maxData: number): string {
  return nodes
    .map(
      (node) =>
        `- ${node._key} (sheet ${graph.sheetsList?.[node.sheet] ?? node.sheet}): ${summarizeData(node.data, maxData) || '(no data)'}`,
    )
    .join('\n');
}

/** An edge as the model names it: `source:handle -> target:handle`, its sheet and label. */
export function formatEdge(edge: GraphEdge, graph: Graph): string {
  const label = edge.label ? `, label ${JSON.stringify(truncate(edge.label, 200))}` : '';
  return `${edge._key}: ${edge.source}:${edge.sourceHandle} -> ${edge.target}:${edge.targetHandle} (sheet ${graph.sheetsList?.[edge.sheet] ?? edge.sheet}${label})`;
}

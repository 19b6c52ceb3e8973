import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../../../graph/graph.types';
import { truncate } from '../../../rag/text-truncation';
import { ReadToolResult } from './read-tool';

/** How the graph's elements appear in read tool results, the same in every tool. */

/** `typeName` when the type's display name says more than its key. */
export function typeName(type: string, configsByType: ReadonlyMap<string, NodeTypeConfig>): { typeName?: string } {
  const displayName = configsByType.get(type)?.displayName;
  return displayName && displayName !== type ? { typeName: displayName } : {};
}

export function indexConfigsByType(configs: readonly NodeTypeConfig[]): ReadonlyMap<string, NodeTypeConfig> {
  return new Map(configs.map((config) => [config._key, config]));
}

export function sheetName(graph: Graph, sheetId: string): string {
  return graph.sheetsList?.[sheetId] ?? sheetId;
}

export function processOf(node: GraphNode): string {
  return typeof node.process === 'string' ? node.process : '';
}

export function dataPreview(data: unknown, maxChars: number): string | undefined {
  if (data === undefined || data === null) return undefined;
  return truncate(safeJson(data), maxChars);
}

/** Small data stays a JSON value (cheaper and clearer than an escaped string); large data becomes a truncated string. */
export function dataDetail(data: unknown, maxChars: number): ReadToolResult {
  if (data === undefined || data === null) return {};
  const json = safeJson(data);
  if (json.length <= maxChars) return { data };
  return { data: truncate(json, maxChars), dataTruncated: true, dataLength: json.length };
}

export function edgeView(edge: GraphEdge): ReadToolResult {
  return {
    key: edge._key,
    from: `${edge.source}:${edge.sourceHandle}`,
    to: `${edge.target}:${edge.targetHandle}`,
    ...(edge.label ? { label: edge.label } : {}),
    sheet: edge.sheet,
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

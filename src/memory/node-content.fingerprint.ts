import { createHash } from 'node:crypto';
import type { GraphNode } from '../graph/graph.types';

/**
 * A short hash of what a node means: `type`, `process`, `data` and `handles` — the fields whose change
 * makes what was said about the node outdated (the ones hasNodeContentChanged compares). Moving or
 * resizing a node keeps its fingerprint. Objects are hashed with their keys sorted, so the order in
 * which a store returns them does not matter.
 */
export function nodeContentFingerprint(node: Pick<GraphNode, 'type' | 'process' | 'data' | 'handles'>): string {
  const content = canonicalJson({ type: node.type, process: node.process, data: node.data, handles: node.handles });
  return createHash('sha256').update(content).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

import { GraphNode, NodeTypeConfig } from '../graph/graph.types';

/** Longest embedding text: well under the 8191-token input limit of OpenAI's models. */
export const NODE_EMBEDDING_TEXT_MAX_CHARS = 8000;

const MAX_DATA_DEPTH = 24;
/** Values that are opaque identifiers (UUIDs, long hex, random mixed-case ids) carry no meaning. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_ID = /^(?=.*\d)[0-9a-f]{16,}$/i;
const RANDOM_ID = /^(?=.*\d)(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9_-]{10,}$/;

/**
 * The text a node's vector is computed from: its type, with the type's display name, category
 * and description when the workspace config is known, its key (in Nodius and imported graphs a
 * readable slug of the node's name), its `process` code, then the values of its `data` as
 * `key: value` lines (object keys sorted so the text, and so its hash, does not depend on key order;
 * booleans, nulls and opaque ids left out). Positions, size and handles are not part of it:
 * moving or resizing a node never changes its text.
 *
 * Capped at NODE_EMBEDDING_TEXT_MAX_CHARS without splitting a UTF-16 surrogate pair. A node with no
 * type, no process and no data gives '' : callers skip it (nothing to embed).
 */
export function createNodeEmbeddingText(node: GraphNode, typeConfig?: NodeTypeConfig): string {
  const type = typeof node.type === 'string' ? node.type.trim() : '';
  const process = typeof node.process === 'string' ? node.process.trim() : '';
  const dataLines: string[] = [];
  collectDataLines(node.data, 'data', 0, dataLines, { chars: 0 });
  if (!type && !process && dataLines.length === 0) return '';

  const parts: string[] = [];
  if (type) parts.push(`type: ${describeType(type, typeConfig)}`);
  if (node._key) parts.push(`node: ${node._key}`);
  if (process) parts.push(`process:\n${process}`);
  if (dataLines.length > 0) parts.push(`data:\n${dataLines.join('\n')}`);
  return truncateText(parts.join('\n'), NODE_EMBEDDING_TEXT_MAX_CHARS);
}

function describeType(type: string, config: NodeTypeConfig | undefined): string {
  if (!config || config._key !== type) return type;
  const label = [config.displayName, config.category ? `(${config.category})` : ''].filter(Boolean).join(' ');
  const description = config.description?.trim();
  return [type, label && `- ${label}`, description && `- ${description}`].filter(Boolean).join(' ');
}

/** Depth-first, keys sorted; stops collecting once the text would be cut anyway. */
function collectDataLines(value: unknown, key: string, depth: number, lines: string[], size: { chars: number }): void {
  if (size.chars > NODE_EMBEDDING_TEXT_MAX_CHARS || depth > MAX_DATA_DEPTH || value === null || value === undefined)
    return;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text && !isOpaqueId(text)) push(`${key}: ${text}`);
  } else if (typeof value === 'number') {
    if (Number.isFinite(value)) push(`${key}: ${value}`);
  } else if (Array.isArray(value)) {
    for (const item of value) collectDataLines(item, key, depth + 1, lines, size);
  } else if (typeof value === 'object') {
    for (const childKey of Object.keys(value).sort()) {
      collectDataLines((value as Record<string, unknown>)[childKey], childKey, depth + 1, lines, size);
    }
  }

  function push(line: string): void {
    lines.push(line);
    size.chars += line.length + 1;
  }
}

function isOpaqueId(text: string): boolean {
  return UUID.test(text) || HEX_ID.test(text) || RANDOM_ID.test(text);
}

function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const lastKept = text.charCodeAt(maxChars - 1);
  // Never keep a lone high surrogate: the text must stay valid UTF-16 (and valid UTF-8 once sent).
  const end = lastKept >= 0xd800 && lastKept <= 0xdbff ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

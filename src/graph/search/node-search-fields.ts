import { GraphNode, NodeTypeConfig } from '../graph.types';

/**
 * What a node is found by, with the weight of an occurrence in each field: what names a node
 * (its key, its type, its type's display name) counts more than what it contains (its code).
 */
export const NODE_SEARCH_FIELD_WEIGHTS = {
  key: 3,
  type: 3,
  typeName: 3,
  typeDescription: 1.5,
  data: 1,
  process: 0.75,
} as const;

export type NodeSearchField = keyof typeof NODE_SEARCH_FIELD_WEIGHTS;

/** Bounds on indexed text per node: a pasted dataset or a bundled script must not blow the index up. */
export const MAX_PROCESS_CHARS = 20_000;
export const MAX_DATA_CHARS = 10_000;

/** The text of each searchable field of a node; `config` is its type's NodeTypeConfig when the workspace has one. */
export function nodeSearchText(node: GraphNode, config: NodeTypeConfig | undefined): Record<NodeSearchField, string> {
  return {
    key: node._key,
    type: node.type,
    typeName: config?.displayName ?? '',
    typeDescription: config?.description ?? '',
    data: collectStrings(node.data, MAX_DATA_CHARS),
    process: typeof node.process === 'string' ? node.process.slice(0, MAX_PROCESS_CHARS) : '',
  };
}

/** The string values found anywhere in a JSON value (not its keys), joined by newlines, up to `maxChars`. */
export function collectStrings(value: unknown, maxChars: number): string {
  const parts: string[] = [];
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && length < maxChars) {
    const current = stack.pop();
    if (typeof current === 'string') {
      parts.push(current);
      length += current.length + 1;
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) stack.push(current[index]);
    } else if (current !== null && typeof current === 'object') {
      const values = Object.values(current);
      for (let index = values.length - 1; index >= 0; index -= 1) stack.push(values[index]);
    }
  }
  return parts.join('\n').slice(0, maxChars);
}

import { GraphNode } from './graph.types';

/** The fields that make up a node's meaning (and its embedding text); position and size do not. */
const CONTENT_FIELDS = ['type', 'process', 'data', 'handles'] as const;

/**
 * True only when the node's semantic content changed: `type`, `process`, `data` or `handles`.
 * Moving (posX, posY) or resizing (size) a node returns false, so its stored
 * embedding stays valid. Objects compare by value whatever their key order; an absent field equals
 * `undefined`.
 */
export function hasNodeContentChanged(original: Partial<GraphNode>, current: Partial<GraphNode>): boolean {
  return CONTENT_FIELDS.some((field) => !isSameValue(original[field], current[field]));
}

function isSameValue(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => isSameValue(item, right[index]));
  }
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  const leftKeys = Object.keys(leftRecord).filter((key) => leftRecord[key] !== undefined);
  const rightKeys = Object.keys(rightRecord).filter((key) => rightRecord[key] !== undefined);
  return (
    leftKeys.length === rightKeys.length && leftKeys.every((key) => isSameValue(leftRecord[key], rightRecord[key]))
  );
}

import { AppError } from '../errors/app-error';
import { GraphNode } from './graph.types';

/** Fields a change set may never set: identity, and the vectors the store manages itself. */
const RESERVED_ROOT_FIELDS = new Set(['_key', 'graphKey', 'embedding', 'embeddingModel', 'embeddingHash']);
/** Path segments that would reach Object.prototype instead of the node's own data. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * Returns a copy of `node` with the field at `path` set to `value` (["data", "a", "b"] for data.a.b).
 * Missing or non-object intermediate values become `{}`; an array is indexed by a numeric segment.
 * The node given is not modified. Throws bad_request for an empty path, a reserved field
 * (_key, graphKey, embedding*) or a prototype segment.
 */
export function setNodeField(node: GraphNode, path: readonly string[], value: unknown): GraphNode {
  checkPath(node, path);
  const copy = structuredClone(node);
  let container: Record<string, unknown> = copy;
  for (const segment of path.slice(0, -1)) {
    const next = container[segment];
    if (typeof next !== 'object' || next === null) container[segment] = {};
    container = container[segment] as Record<string, unknown>;
  }
  container[path[path.length - 1]] = structuredClone(value);
  return copy;
}

/**
 * Returns a copy of `node` without the field at `path` (a missing field, or a missing or non-object parent, changes
 * nothing). The same paths are refused as by setNodeField.
 */
export function unsetNodeField(node: GraphNode, path: readonly string[]): GraphNode {
  checkPath(node, path);
  const copy = structuredClone(node);
  let container: unknown = copy;
  for (const segment of path.slice(0, -1)) {
    if (typeof container !== 'object' || container === null) return copy;
    container = (container as Record<string, unknown>)[segment];
  }
  if (typeof container === 'object' && container !== null)
    delete (container as Record<string, unknown>)[path[path.length - 1]];
  return copy;
}

function checkPath(node: GraphNode, path: readonly string[]): void {
  if (path.length === 0 || path.some((segment) => typeof segment !== 'string' || segment.length === 0)) {
    throw AppError.badRequest(`Invalid field path "${path.join('.')}" for node "${node._key}"`);
  }
  if (RESERVED_ROOT_FIELDS.has(path[0])) {
    throw AppError.badRequest(`Field "${path[0]}" of node "${node._key}" cannot be changed`);
  }
  if (path.some((segment) => FORBIDDEN_SEGMENTS.has(segment))) {
    throw AppError.badRequest(`Invalid field path "${path.join('.')}" for node "${node._key}"`);
  }
}

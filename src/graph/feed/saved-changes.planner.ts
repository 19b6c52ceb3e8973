import { GraphChangeSet, NodeFieldInstruction } from '../graph-change-set';
import { GraphEdge, GraphNode } from '../graph.types';
import { hasNodeContentChanged } from '../node-content';
import { LiveGraphChanges } from '../overlay/live-graph-changes';

/** Root fields the feed never writes: identity, and the vectors the store manages. */
const UNTOUCHED_FIELDS = new Set(['_key', 'graphKey', 'embedding', 'embeddingModel', 'embeddingHash']);

export interface SavedChangesPlan {
  changes: GraphChangeSet;
  /** Nodes created or whose content changed: the ones the embedding write path must look at. */
  changedNodeKeys: string[];
}

/**
 * Turns saved feed changes into ONE GraphChangeSet for a store this service owns, given the stored
 * state of the keys they touch:
 *  - an upserted node that exists is replaced field by field (a `set` instruction per changed
 *    top-level field, `undefined` for a field it no longer has), so it keeps its edges and, when
 *    only moved or resized, its vector; a new one is created;
 *  - an upserted edge that exists is deleted and created again in the same set; a new one is created;
 *  - deleting a node or edge the store does not have is a no-op (it only ever lived in the overlay).
 * Pure; the store's planner then checks integrity (dangling edges…) inside the transaction.
 */
export function planSavedChanges(
  changes: LiveGraphChanges,
  storedNodes: ReadonlyMap<string, GraphNode>,
  storedEdges: ReadonlyMap<string, GraphEdge>,
): SavedChangesPlan {
  const instructions: NodeFieldInstruction[] = [];
  const nodesToCreate: GraphNode[] = [];
  const changedNodeKeys: string[] = [];
  for (const node of changes.upsertNodes) {
    const before = storedNodes.get(node._key);
    if (!before) {
      nodesToCreate.push(node);
      changedNodeKeys.push(node._key);
      continue;
    }
    instructions.push(...replacementInstructions(before, node));
    if (hasNodeContentChanged(before, node)) changedNodeKeys.push(node._key);
  }
  const replacedEdges = changes.upsertEdges.filter((edge) => storedEdges.has(edge._key)).map((edge) => edge._key);
  return {
    changes: {
      instructions,
      nodesToCreate,
      edgesToCreate: changes.upsertEdges,
      nodeKeysToDelete: changes.deleteNodes.filter((key) => storedNodes.has(key)),
      edgeKeysToDelete: [...changes.deleteEdges.filter((key) => storedEdges.has(key)), ...replacedEdges],
    },
    changedNodeKeys,
  };
}

function replacementInstructions(before: GraphNode, after: GraphNode): NodeFieldInstruction[] {
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  const instructions: NodeFieldInstruction[] = [];
  for (const field of fields) {
    if (UNTOUCHED_FIELDS.has(field)) continue;
    if (JSON.stringify(before[field]) === JSON.stringify(after[field])) continue;
    instructions.push({ nodeKey: after._key, op: 'set', path: [field], value: after[field] });
  }
  return instructions;
}

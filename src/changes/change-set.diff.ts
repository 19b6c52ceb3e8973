import type { ActionConversionResult } from '../conversation/action-conversion-result';
import type { NodeFieldInstruction } from '../graph/graph-change-set';
import type { GraphEdge, GraphNode } from '../graph/graph.types';
import { fingerprintOf } from './document.fingerprint';
import type { GraphSnapshot, SnapshotKeys } from './graph-snapshot';

/** Fields a change set never sets: identity, and the vectors a store manages itself. */
const NOT_SET = new Set(['_key', 'graphKey', 'embedding', 'embeddingModel', 'embeddingHash']);

/**
 * The change set that turns `from` into `to` on the given keys: absent → present
 * creates, present → absent deletes, a changed node gets one instruction per top-level field that differs (`set` to
 * its value in `to`, or `unset` when `to` has none), a changed edge is deleted and created again (a change set cannot
 * edit an edge). Applied to `from` in the planner's order it gives exactly `to`: the inverse of an operation is this
 * diff from the state after it to the state before it.
 */
export function changeSetBetween(
  from: GraphSnapshot,
  to: GraphSnapshot,
  keys: SnapshotKeys,
  sheetId: string,
): ActionConversionResult {
  const result: ActionConversionResult = {
    instructions: [],
    nodesToCreate: [],
    edgesToCreate: [],
    nodeKeysToDelete: [],
    edgeKeysToDelete: [],
    sheetId,
  };
  for (const key of [...keys.nodes].sort()) {
    const before = from.node(key);
    const after = to.node(key);
    if (!before && after) result.nodesToCreate.push(structuredClone(after));
    else if (before && !after) result.nodeKeysToDelete.push(key);
    else if (before && after) result.instructions.push(...fieldChanges(before, after));
  }
  for (const key of [...keys.edges].sort()) {
    const before = from.edge(key);
    const after = to.edge(key);
    if (fingerprintOf(before) === fingerprintOf(after)) continue;
    if (before) result.edgeKeysToDelete.push(key);
    if (after) result.edgesToCreate.push(structuredClone(after) as GraphEdge);
  }
  return result;
}

function fieldChanges(before: GraphNode, after: GraphNode): NodeFieldInstruction[] {
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  const instructions: NodeFieldInstruction[] = [];
  for (const field of [...fields].sort()) {
    if (NOT_SET.has(field)) continue;
    const was = (before as unknown as Record<string, unknown>)[field];
    const is = (after as unknown as Record<string, unknown>)[field];
    if (fingerprintOf({ value: was }) === fingerprintOf({ value: is })) continue;
    instructions.push(
      is === undefined
        ? { nodeKey: before._key, op: 'unset', path: [field] }
        : { nodeKey: before._key, op: 'set', path: [field], value: structuredClone(is) },
    );
  }
  return instructions;
}

/** True when the change set changes nothing. */
export function isEmptyChangeSet(changes: ActionConversionResult): boolean {
  return (
    changes.instructions.length === 0 &&
    changes.nodesToCreate.length === 0 &&
    changes.edgesToCreate.length === 0 &&
    changes.nodeKeysToDelete.length === 0 &&
    changes.edgeKeysToDelete.length === 0
  );
}

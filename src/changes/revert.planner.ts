import type { ActionConversionResult } from '../conversation/action-conversion-result';
import { fingerprintOf } from './document.fingerprint';
import type { GraphSnapshot, SnapshotKeys } from './graph-snapshot';
import type { OperationRecord, RefusedRevert, TouchedDocument } from './operation';

/** What a revert does to one operation: the part of its inverse applied, and what it refused. */
export interface OperationRevert {
  operationId: string;
  /** Its inverse without the refused parts (empty when everything was refused). */
  applied: ActionConversionResult;
  refused: RefusedRevert[];
}

/**
 * The documents planning a revert of `operations` needs: everything they touched,
 * the edges of those nodes (a node the revert deletes takes its edges along), and the ends of the edges it restores.
 */
export function revertKeys(operations: readonly OperationRecord[]): SnapshotKeys {
  const nodes = new Set<string>();
  const edges = new Set<string>();
  for (const operation of operations) {
    for (const touched of operation.touched) (touched.kind === 'node' ? nodes : edges).add(touched.key);
    for (const edge of operation.inverse.edgesToCreate) {
      nodes.add(edge.source);
      nodes.add(edge.target);
    }
  }
  return { nodes, edges, edgesOfNodes: new Set(nodes) };
}

/**
 * Plans the revert of one operation against `working` (the graph as the newer reverts of the same request left it),
 * and applies it there. A part is reverted only when it is exactly as the operation left it: a node or edge anyone
 * changed since (in the store, or live in an editor: `liveEdits`, "node:<key>" / "edge:<key>") is refused with
 * `changed_since`, never overwritten. What depends on a refused part is refused too (`depends_on_refused`): a node the
 * revert would delete keeps its edges only if all of them go with it; an edge put back needs both its ends.
 */
export function planRevert(
  operation: OperationRecord,
  working: GraphSnapshot,
  liveEdits: ReadonlySet<string>,
): OperationRevert {
  const touched = new Map(operation.touched.map((item) => [`${item.kind}:${item.key}`, item]));
  const refused = new Map<string, RefusedRevert>();
  const refuse = (item: Pick<TouchedDocument, 'kind' | 'key'>, reason: RefusedRevert['reason']) => {
    const id = `${item.kind}:${item.key}`;
    if (!refused.has(id))
      refused.set(id, { kind: item.kind, key: item.key, reason, operationId: operation.operationId });
  };
  for (const [id, item] of touched) {
    const now = fingerprintOf(item.kind === 'node' ? working.node(item.key) : working.edge(item.key));
    if (now !== item.after || liveEdits.has(id)) refuse(item, 'changed_since');
  }
  const inverse = operation.inverse;
  const restoredEdges = new Map(inverse.edgesToCreate.map((edge) => [edge._key, edge]));
  // Refusing one part may refuse what depends on it: until nothing more is refused.
  let before: number;
  do {
    before = refused.size;
    for (const nodeKey of inverse.nodeKeysToDelete) {
      if (refused.has(`node:${nodeKey}`)) continue;
      for (const edgeKey of working.edgesOf(nodeKey)) {
        if (!touched.has(`edge:${edgeKey}`)) refuse({ kind: 'node', key: nodeKey }, 'changed_since');
        else if (refused.has(`edge:${edgeKey}`)) refuse({ kind: 'node', key: nodeKey }, 'depends_on_refused');
      }
    }
    for (const [edgeKey, edge] of restoredEdges) {
      if (refused.has(`edge:${edgeKey}`)) continue;
      for (const end of [edge.source, edge.target]) {
        const restoredByThis = inverse.nodesToCreate.some((node) => node._key === end);
        if (restoredByThis ? refused.has(`node:${end}`) : working.node(end) === null)
          refuse({ kind: 'edge', key: edgeKey }, restoredByThis ? 'depends_on_refused' : 'changed_since');
      }
    }
  } while (refused.size !== before);
  const keep = (kind: 'node' | 'edge', key: string) => !refused.has(`${kind}:${key}`);
  const applied: ActionConversionResult = {
    instructions: inverse.instructions.filter((instruction) => keep('node', instruction.nodeKey)),
    nodesToCreate: inverse.nodesToCreate.filter((node) => keep('node', node._key)),
    edgesToCreate: inverse.edgesToCreate.filter((edge) => keep('edge', edge._key)),
    nodeKeysToDelete: inverse.nodeKeysToDelete.filter((key) => keep('node', key)),
    edgeKeysToDelete: inverse.edgeKeysToDelete.filter((key) => keep('edge', key)),
    sheetId: inverse.sheetId,
  };
  working.apply(applied);
  return { operationId: operation.operationId, applied, refused: [...refused.values()] };
}

import type { ThreadEvent, ThreadEventResult } from '../../conversation/thread-event';
import type { OperationRecord } from '../../changes/operation';
import { joinWords, plural } from './event-wording';

/**
 * The ACTIONS_REVERTED event of a revert: what was put back as it was, one item per node or
 * edge, and one failed item per part refused (a human changed it since, or it depends on such a part), e.g.
 * "Reverted 2 operations: deleted 1 node, restored 1 edge; 1 part refused". `sent`: HITL_APPLY=client, the inverse
 * went to the editor to apply.
 */
export function actionsRevertedEvent(revert: OperationRecord, sent: boolean): ThreadEvent {
  const { changes, outcome } = revert;
  const reverted = outcome.reverted ?? [];
  const refused = outcome.refused ?? [];
  const results: ThreadEventResult[] = [
    ...changes.nodeKeysToDelete.map((key) => ({
      ok: true,
      label: `delete_node ${key}`,
      detail: 'created by the assistant',
    })),
    ...changes.nodesToCreate.map((node) => ({ ok: true, label: `restore_node ${node._key}` })),
    ...[...new Set(changes.instructions.map((instruction) => instruction.nodeKey))].map((key) => ({
      ok: true,
      label: `restore_node ${key}`,
      detail: 'fields as before',
    })),
    ...changes.edgeKeysToDelete.map((key) => ({ ok: true, label: `delete_edge ${key}` })),
    ...changes.edgesToCreate.map((edge) => ({ ok: true, label: `restore_edge ${edge._key}` })),
    ...refused.map((part) => ({
      ok: false,
      label: `${part.kind} ${part.key}`,
      detail: part.reason === 'changed_since' ? 'changed since: kept as it is' : 'depends on a part kept as it is',
    })),
  ];
  const done = results.filter((result) => result.ok).length;
  const parts = [
    reverted.length === 0
      ? 'Nothing reverted'
      : `${sent ? 'Sent to the editor to revert' : 'Reverted'} ${plural(reverted.length, 'operation')}: ${plural(done, 'change')}`,
    ...(refused.length > 0 ? [`${plural(refused.length, 'part')} refused (changed since)`] : []),
  ];
  return {
    type: 'ACTIONS_REVERTED',
    summary: joinWords(parts),
    results,
    operationIds: [revert.operationId, ...reverted],
  };
}

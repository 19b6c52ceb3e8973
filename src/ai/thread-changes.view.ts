import type { OperationActor, OperationRecord, RefusedRevert } from '../changes/operation';
import type { ActionConversionResult } from '../conversation/action-conversion-result';
import type { ThreadEvent } from '../conversation/thread-event';
import type { ThreadRecord } from '../threads/thread.types';

/** One applied change of a thread (GET /api/ai/thread/:threadId/changes). */
export interface ThreadChangeView {
  operationId: string;
  /** The message it belongs to: the assistant message that proposed it, or the event that records it. */
  messageId: string | null;
  /** The tool call of the proposal it decided (absent for a revert): a client finds the message showing it by this. */
  toolCallId?: string;
  appliedTime: number;
  actor: OperationActor;
  /** `client`: sent to the editor to apply (HITL_APPLY=client). */
  appliedBy: 'server' | 'client';
  changes: ActionConversionResult;
  inverse: ActionConversionResult;
  revertedBy?: string;
  /** A revert: the operations it reverted. */
  reverts?: string[];
}

/** The answer of undo and restore. */
export interface RevertResult {
  threadId: string;
  /** The revert's own operation (`via: "undo"`): undo it with the message of its event. */
  operationId: string;
  /** The operations it reverted, newest first. */
  reverted: string[];
  /** The parts it did not revert: changed since (a human's later edit is never overwritten), or depending on such a part. */
  refused: Array<Omit<RefusedRevert, 'operationId'> & { operationId: string }>;
  /** The ACTIONS_REVERTED event it wrote to the thread. */
  event: ThreadEvent;
  /** HITL_APPLY=client: the change set the editor applies (also sent as `ai:apply`). */
  apply?: { operationId: string; changes: ActionConversionResult };
}

/**
 * The message each operation of a thread belongs to: the assistant message holding its tool call, else the thread
 * event listing it (a revert's ACTIONS_REVERTED, or what a crash kept out of the thread, told later), else the one it
 * was recorded with.
 */
export function messagesOfOperations(
  thread: ThreadRecord,
  operations: readonly OperationRecord[],
): Map<string, string | null> {
  const byCall = new Map<string, string>();
  const byOperation = new Map<string, string>();
  for (const message of thread.messages) {
    for (const call of message.toolCalls ?? []) byCall.set(call.id, message.id);
    for (const id of message.event?.operationIds ?? []) if (!byOperation.has(id)) byOperation.set(id, message.id);
  }
  return new Map(
    operations.map((record) => [
      record.operationId,
      (record.toolCallId !== undefined ? byCall.get(record.toolCallId) : undefined) ??
        byOperation.get(record.operationId) ??
        record.messageId ??
        null,
    ]),
  );
}

/** The applied (or sent) operations of a thread, oldest first, as clients see them. */
export function toThreadChangesView(thread: ThreadRecord, operations: readonly OperationRecord[]): ThreadChangeView[] {
  const messages = messagesOfOperations(thread, operations);
  return operations
    .filter((record) => record.status === 'applied' || record.status === 'sent')
    .map((record) => ({
      operationId: record.operationId,
      messageId: messages.get(record.operationId) ?? null,
      ...(record.toolCallId !== undefined ? { toolCallId: record.toolCallId } : {}),
      appliedTime: record.appliedTime,
      actor: record.actor,
      appliedBy: record.status === 'sent' ? 'client' : 'server',
      changes: record.changes,
      inverse: record.inverse,
      ...(record.revertedBy ? { revertedBy: record.revertedBy } : {}),
      ...(record.reverts && record.reverts.length > 0 ? { reverts: record.reverts } : {}),
    }));
}

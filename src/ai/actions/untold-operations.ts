import { operationIdOf } from '../../changes/operation.service';
import type { OperationRecord } from '../../changes/operation';
import type { PendingInterrupt, ThreadRecord } from '../../threads/thread.types';

/**
 * Operations a crash kept out of their thread: recorded with their graph change, their
 * thread commit never landed. The next request on the thread tells them, so the thread and the model know what the
 * graph holds.
 */

/** The recorded decisions of a pending interrupt's calls (a crash between the decision and its commit). */
export function decisionsOf(
  pending: PendingInterrupt,
  threadId: string,
  operations: readonly OperationRecord[],
): Map<string, OperationRecord> {
  const byId = new Map(operations.map((record) => [record.operationId, record]));
  const decided = new Map<string, OperationRecord>();
  for (const callId of [pending.interrupt.toolCallId, ...pending.remainingToolCalls.map((call) => call.id)]) {
    const record = byId.get(operationIdOf(threadId, callId));
    if (record) decided.set(callId, record);
  }
  return decided;
}

/**
 * Applied operations of calls the thread holds no result of, outside its pending interrupt (`decided`), told by no
 * event: an autonomous round whose commit a crash prevented. The model never saw them; it must, or it might propose
 * them again.
 */
export function untoldProposals(
  thread: ThreadRecord,
  operations: readonly OperationRecord[],
  decided: ReadonlyMap<string, OperationRecord>,
): OperationRecord[] {
  const { answered, told } = whatTheThreadSays(thread);
  return operations.filter(
    (record) =>
      record.toolCallId !== undefined &&
      applied(record) &&
      !answered.has(record.toolCallId) &&
      !decided.has(record.toolCallId) &&
      !told.has(record.operationId),
  );
}

/** Reverts whose ACTIONS_REVERTED event never reached the thread (a crash between the revert and its event). */
export function untoldReverts(thread: ThreadRecord, operations: readonly OperationRecord[]): OperationRecord[] {
  const { told } = whatTheThreadSays(thread);
  const messages = new Set(thread.messages.map((message) => message.id));
  return operations.filter(
    (record) =>
      record.actor.via === 'undo' &&
      applied(record) &&
      !told.has(record.operationId) &&
      (record.messageId === undefined || !messages.has(record.messageId)),
  );
}

function applied(record: OperationRecord): boolean {
  return record.status === 'applied' || record.status === 'sent';
}

function whatTheThreadSays(thread: ThreadRecord): { answered: Set<string>; told: Set<string> } {
  const answered = new Set<string>();
  const told = new Set<string>();
  for (const message of thread.messages) {
    if (message.role === 'tool' && message.toolCallId) answered.add(message.toolCallId);
    for (const id of message.event?.operationIds ?? []) told.add(id);
  }
  return { answered, told };
}

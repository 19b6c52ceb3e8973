import { canEdit, Principal } from '../../auth/principal';
import type { OperationService } from '../../changes/operation.service';
import type { OperationRecord } from '../../changes/operation';
import type { AppConfig } from '../../config/app-config';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import type { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import { generateMessageId, generateSortableId } from '../../threads/sortable-id.generator';
import { toEventMessage } from '../../threads/thread-message.factory';
import type { ThreadService } from '../../threads/thread.service';
import type { ThreadRecord } from '../../threads/thread.types';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { RestoreInput, UndoInput } from '../chat-input';
import { actionsRevertedEvent } from '../events/actions-reverted.event';
import { untoldReverts } from '../actions/untold-operations';
import { messagesOfOperations, RevertResult } from '../thread-changes.view';

export type { RevertResult } from '../thread-changes.view';

/** Where a revert's events go on a socket: the thread first, its event, the change to apply (client mode). */
export type RevertEvents = Pick<AgentEventSink, 'thread' | 'event' | 'apply'>;

const logger = new Logger('changes');

/**
 * Undo and restore: puts back what the assistant applied
 * for a message (undo; by default the latest assistant message that applied anything) or after a message (restore),
 * as ONE operation of its own (`via: "undo"`) that can itself be undone (undo the message of its ACTIONS_REVERTED
 * event). A node or edge changed since is refused, never overwritten. Allowed to whoever could approve the thread's
 * proposals (403 for viewers; another user's thread is not_found); one at a time on a thread, as a run (its lease:
 * thread_busy). The thread records an ACTIONS_REVERTED event, which the model sees in its history.
 */
export class RevertChanges {
  constructor(
    private readonly threads: ThreadService,
    private readonly operations: OperationService,
    private readonly retriever: GraphRagRetriever,
    private readonly config: AppConfig,
  ) {}

  undo(principal: Principal, input: UndoInput, events?: RevertEvents): Promise<RevertResult> {
    return this.revert(principal, input.threadId, events, (thread, operations) =>
      input.messageId === undefined
        ? latestMessageChanges(thread, operations)
        : messageChanges(thread, operations, input.messageId),
    );
  }

  restore(principal: Principal, input: RestoreInput, events?: RevertEvents): Promise<RevertResult> {
    return this.revert(principal, input.threadId, events, (thread, operations) =>
      changesAfter(thread, operations, input.messageId),
    );
  }

  /**
   * Reverts a crash kept out of the thread (recorded, their event never committed) get their event first, under the
   * message id they were recorded with, so the thread says what happened before anything else is reverted.
   */
  private async tellUntoldReverts(
    thread: ThreadRecord,
    operations: readonly OperationRecord[],
    events: RevertEvents | undefined,
  ): Promise<ThreadRecord> {
    const untold = untoldReverts(thread, operations);
    if (untold.length === 0) return thread;
    const now = Date.now();
    const told = untold.map((record) => actionsRevertedEvent(record, record.status === 'sent'));
    const updated = await this.threads.commit(thread, {
      append: told.map((event, index) => ({
        ...toEventMessage(event, now),
        ...(untold[index].messageId ? { id: untold[index].messageId } : {}),
      })),
    });
    for (const event of told) events?.event(event);
    return updated;
  }

  private async revert(
    principal: Principal,
    threadId: string,
    events: RevertEvents | undefined,
    choose: (thread: ThreadRecord, operations: OperationRecord[]) => OperationRecord[],
  ): Promise<RevertResult> {
    await this.threads.load(principal, threadId);
    events?.thread(threadId);
    if (!canEdit(principal)) throw AppError.forbidden('Only editors and admins can undo or restore changes');
    const begun = await this.threads.beginRun(principal, threadId);
    const { lease } = begun;
    try {
      const operations = await this.operations.listForThread(principal.workspace, begun.thread.threadId);
      const thread = await this.tellUntoldReverts(begun.thread, operations, events);
      const chosen = choose(thread, operations);
      if (chosen.length === 0)
        throw AppError.conflict('Nothing to revert: no change of the assistant is in effect there');
      const now = Date.now();
      const messageId = generateMessageId(now);
      const mode = this.config.agent.hitlApply;
      const { record } = await this.operations.revert({
        operationId: `${thread.threadId}:undo:${generateSortableId('rev_', now)}`,
        workspace: principal.workspace,
        graphKey: thread.graphKey,
        threadId: thread.threadId,
        messageId,
        actor: { userId: principal.userId, role: principal.role, via: 'undo' },
        operations: chosen,
        mode,
      });
      this.retriever.clearCache(thread.graphKey, principal.workspace);
      const event = actionsRevertedEvent(record, record.status === 'sent');
      // The operation id names this commit: a retry after a failure here writes the event once.
      await this.threads.commit(thread, {
        operationId: record.operationId,
        append: [{ ...toEventMessage(event, now), id: messageId }],
      });
      events?.event(event);
      const sent = record.status === 'sent' ? { operationId: record.operationId, changes: record.changes } : undefined;
      if (sent) events?.apply({ operationId: sent.operationId, preview: sent.changes, reverts: record.reverts ?? [] });
      logger.info('changes_reverted', {
        threadId: thread.threadId,
        operationId: record.operationId,
        reverted: (record.outcome.reverted ?? []).length,
        refused: (record.outcome.refused ?? []).length,
      });
      return {
        threadId: thread.threadId,
        operationId: record.operationId,
        reverted: record.outcome.reverted ?? [],
        refused: record.outcome.refused ?? [],
        event,
        ...(sent ? { apply: sent } : {}),
      };
    } finally {
      await lease.release();
    }
  }
}

/**
 * The operation that carries `record`'s effect now: itself when nothing reverted it, the revert of its revert (a
 * redo) and so on; null when its effect is undone (an odd number of reverts). Partly reverted counts as reverted.
 */
function inEffect(record: OperationRecord, byId: ReadonlyMap<string, OperationRecord>): OperationRecord | null {
  let current = record;
  let depth = 0;
  while (current.revertedBy) {
    const next = byId.get(current.revertedBy);
    if (!next) break;
    current = next;
    depth += 1;
  }
  return depth % 2 === 0 ? current : null;
}

/** The operations in effect for the given ones, newest first, each once. */
function inEffectOf(records: readonly OperationRecord[], all: readonly OperationRecord[]): OperationRecord[] {
  const byId = new Map(all.map((record) => [record.operationId, record]));
  const found = new Map<string, OperationRecord>();
  for (const record of records) {
    const current = inEffect(record, byId);
    if (current) found.set(current.operationId, current);
  }
  return [...found.values()].sort((left, right) => right.appliedTime - left.appliedTime);
}

function applied(record: OperationRecord): boolean {
  return record.status === 'applied' || record.status === 'sent';
}

/** The operations of one message (an assistant message, or a revert's event: undoing it puts the change back). */
function messageChanges(thread: ThreadRecord, operations: OperationRecord[], messageId: string): OperationRecord[] {
  if (!thread.messages.some((message) => message.id === messageId))
    throw AppError.notFound(`No message "${messageId}" in this thread`);
  const messages = messagesOfOperations(thread, operations);
  return inEffectOf(
    operations.filter((record) => applied(record) && messages.get(record.operationId) === messageId),
    operations,
  );
}

/** The operations of the latest message whose assistant changes are in effect. */
function latestMessageChanges(thread: ThreadRecord, operations: OperationRecord[]): OperationRecord[] {
  const messages = messagesOfOperations(thread, operations);
  const byId = new Map(operations.map((record) => [record.operationId, record]));
  const position = new Map(thread.messages.map((message, index) => [message.id, index]));
  let latest: { messageId: string; index: number } | null = null;
  for (const record of operations) {
    if (!applied(record) || record.actor.via === 'undo' || !inEffect(record, byId)) continue;
    const messageId = messages.get(record.operationId);
    const index = messageId ? position.get(messageId) : undefined;
    if (messageId && index !== undefined && (!latest || index > latest.index)) latest = { messageId, index };
  }
  return latest ? messageChanges(thread, operations, latest.messageId) : [];
}

/** The assistant's operations in effect whose message comes after `messageId`. */
function changesAfter(thread: ThreadRecord, operations: OperationRecord[], messageId: string): OperationRecord[] {
  const index = thread.messages.findIndex((message) => message.id === messageId);
  if (index < 0) throw AppError.notFound(`No message "${messageId}" in this thread`);
  const messages = messagesOfOperations(thread, operations);
  const position = new Map(thread.messages.map((message, at) => [message.id, at]));
  return inEffectOf(
    operations.filter((record) => {
      if (!applied(record) || record.actor.via === 'undo') return false;
      const at = position.get(messages.get(record.operationId) ?? '');
      return at !== undefined && at > index;
    }),
    operations,
  );
}

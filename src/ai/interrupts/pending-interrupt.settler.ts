import type { Principal } from '../../auth/principal';
import type { OperationActor, OperationRecord } from '../../changes/operation';
import type { Locale } from '../../config/app-config';
import type { ConfirmedAction } from '../../conversation/interrupt';
import { AppError } from '../../errors/app-error';
import { generateMessageId } from '../../threads/sortable-id.generator';
import { PendingInterrupt, PendingItem, ThreadMessage } from '../../threads/thread.types';
import { mergedBasis } from '../../changes/proposal-basis';
import { mergeChangeSets } from '../actions/action.converter';
import { applicationOf, ApprovedChange, RunActions } from '../actions/run-actions';
import { ProposalResolution } from '../agent/agent-result';
import {
  autonomousResultContent,
  ItemMention,
  PROPOSAL_MESSAGES,
  ProposalMessages,
  ProposalOutcome,
  proposalResultContent,
  SUPERSEDED_FEEDBACK,
} from '../agent/tool-result.message';
import { HitlObserver } from '../hitl.observer';
import { declinedContent, settleQuestion } from '../tools/ask-user.answer';

/** Where a human's decision on a proposal is recorded (RunActions: one operation each). */
export type DecisionActions = Pick<RunActions, 'applyApproved' | 'reject'>;

/** The human's answer to a pending interrupt (POST /api/ai/resume, ai:resume), its texts already checked. */
export interface InterruptDecision {
  approved: boolean;
  feedback?: string;
  answer?: string;
  /** A batch: the items approved (the others declined); absent: the whole proposal. */
  approvedItems?: string[];
}

/** A settled interrupt: the tool result the model receives and, for a proposal, how it was settled. */
export interface InterruptSettlement {
  content: string;
  /** The call did what it asked: the proposal applied (or handed to the client), the question answered. */
  success: boolean;
  resolution?: ProposalResolution;
  /** A confirm question asked for an action and answered yes: that action is allowed from the next reply. */
  allows?: ConfirmedAction;
}

type ApprovalInterrupt = Extract<PendingInterrupt['interrupt'], { kind: 'approval' }>;

/**
 * Settles the interrupt a thread is waiting on. A proposal: approved (whole, or some items of a batch: an
 * inconsistent subset is a 400 before anything changes), applied once through the run's RunActions (one operation:
 * a retry after a crash answers what the first attempt did, and a stale proposal applies nothing), or rejected (a
 * decision recorded too, so a racing approval and rejection have one outcome); its outcome becomes the tool result
 * the model receives and the `resolution` of the answer. A question: its answer checked
 * against it (bad_request before anything changes, so it stays pending), then answered or declined. Each outcome is reported to the HitlObserver (metrics).
 */
export class PendingInterruptSettler {
  private readonly messages: ProposalMessages;

  constructor(
    private readonly hitl?: HitlObserver,
    locale: Locale = 'en',
  ) {
    this.messages = PROPOSAL_MESSAGES[locale] ?? PROPOSAL_MESSAGES.en;
  }

  /**
   * Checks a decision before anything is done (the interrupt stays pending when it is refused): bad_request for
   * `approvedItems` on a question or a single action, unknown or no items, or a subset that is not consistent on its
   * own (an item needs a node or edge that a declined item creates).
   */
  check(pending: PendingInterrupt, decision: InterruptDecision): void {
    const { interrupt } = pending;
    if (decision.approvedItems === undefined) return;
    if (interrupt.kind !== 'approval' || !pending.items)
      throw AppError.badRequest('approvedItems is only for a batch proposal (its preview lists items)');
    if (!decision.approved) throw AppError.badRequest('approvedItems goes with approved: true');
    approvedChange(interrupt, pending.items, decision.approvedItems);
  }

  async settle(
    pending: PendingInterrupt,
    decision: InterruptDecision,
    actions: DecisionActions,
    approver: Principal,
  ): Promise<InterruptSettlement> {
    const interrupt = pending.interrupt;
    const { approved, feedback } = decision;
    if (interrupt.kind === 'question') {
      const settled = settleQuestion(interrupt, decision);
      this.hitl?.interrupt(settled.status);
      return { content: settled.content, success: settled.status === 'answered', allows: settled.allows };
    }
    this.check(pending, decision);
    const actor = approverOf(approver, pending);
    let record: OperationRecord;
    if (!approved) {
      record = (await actions.reject(interrupt.toolCallId, actor, interrupt.preview.sheetId)).record;
    } else {
      const change: ApprovedChange = pending.items
        ? approvedChange(interrupt, pending.items, decision.approvedItems ?? pending.items.map((item) => item.itemId))
        : { changes: interrupt.preview, basis: interrupt.preview.basis ?? null };
      record = (await actions.applyApproved(interrupt.toolCallId, actor, change)).record;
    }
    const outcome = this.outcomeOf(record, interrupt, feedback);
    this.hitl?.interrupt(outcome.status);
    const application = record.status === 'rejected' ? null : applicationOf(record);
    const appliedBy = application?.status === 'applied' ? application.appliedBy : null;
    return {
      content: proposalResultContent(outcome),
      success: outcome.status === 'approved',
      resolution: {
        toolCallId: interrupt.toolCallId,
        status: outcome.status,
        operationId: record.operationId,
        appliedBy,
        ...(appliedBy ? { changes: record.changes } : {}),
        message: outcome.message,
        ...(outcome.changed ? { changed: outcome.changed } : {}),
        ...(record.outcome.appliedItems
          ? { appliedItems: record.outcome.appliedItems, declinedItems: record.outcome.declinedItems ?? [] }
          : {}),
      },
    };
  }

  /** What the model is told a recorded decision became (the first decision of the proposal, whatever this one asked). */
  outcomeOf(record: OperationRecord, interrupt: ApprovalInterrupt, feedback?: string): ProposalOutcome {
    const items = interrupt.preview.items ?? [];
    const mention = (ids: string[] | undefined): ItemMention[] =>
      (ids ?? []).map((itemId) => ({
        itemId,
        description: items.find((item) => item.itemId === itemId)?.description ?? itemId,
      }));
    switch (record.status) {
      case 'applied':
      case 'sent': {
        const partly = (record.outcome.declinedItems ?? []).length > 0;
        return {
          status: 'approved',
          message: partly
            ? this.messages.partlyApproved
            : record.status === 'applied'
              ? this.messages.appliedOnServer
              : this.messages.approvedForClient,
          feedback,
          ...(record.outcome.appliedItems
            ? {
                appliedItems: mention(record.outcome.appliedItems),
                declinedItems: mention(record.outcome.declinedItems),
              }
            : {}),
        };
      }
      case 'stale':
        return { status: 'stale', message: this.messages.stale, changed: record.outcome.changed ?? [], feedback };
      case 'failed':
        return { status: 'failed', message: this.messages.failed(record.outcome.reason ?? ''), feedback };
      case 'rejected':
        return { status: 'rejected', message: this.messages.rejected, feedback };
    }
  }
}

/** The actor of a human's decision on a proposal (of an automation's run: recorded with it). */
function approverOf(approver: Principal, pending: PendingInterrupt): OperationActor {
  const automation = pending.acting?.automation;
  return {
    userId: approver.userId,
    role: approver.role,
    via: 'approval',
    ...(automation ? { automationId: automation.automationId, onBehalfOf: automation.onBehalfOf } : {}),
  };
}

/**
 * The change of the approved items of a batch: their change sets merged in the batch's order, their bases merged.
 * bad_request naming the problem when an id is unknown, none is given, or an approved item needs a node or edge only
 * a declined item creates.
 */
function approvedChange(interrupt: ApprovalInterrupt, items: PendingItem[], approvedIds: string[]): ApprovedChange {
  const known = new Set(items.map((item) => item.itemId));
  const unknown = approvedIds.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw AppError.badRequest(`approvedItems names no item of this proposal: ${unknown.join(', ')}`, {
      items: items.map((item) => item.itemId),
    });
  if (approvedIds.length === 0)
    throw AppError.badRequest('approvedItems names no item; to decline every item, send approved: false');
  const approved = new Set(approvedIds);
  const createdBy = new Map<string, string>();
  for (const item of items) {
    for (const node of item.changes.nodesToCreate) createdBy.set(`node:${node._key}`, item.itemId);
    for (const edge of item.changes.edgesToCreate) createdBy.set(`edge:${edge._key}`, item.itemId);
  }
  const descriptions = new Map((interrupt.preview.items ?? []).map((item) => [item.itemId, item.description]));
  for (const item of items) {
    if (!approved.has(item.itemId)) continue;
    const needs = [
      ...item.changes.edgesToCreate.flatMap((edge) => [edge.source, edge.target]),
      ...item.changes.instructions.map((instruction) => instruction.nodeKey),
    ].map((key) => `node:${key}`);
    needs.push(...item.changes.edgeKeysToDelete.map((key) => `edge:${key}`));
    for (const need of needs) {
      const creator = createdBy.get(need);
      if (creator !== undefined && creator !== item.itemId && !approved.has(creator)) {
        const [kind, key] = need.split(/:(.*)/s);
        throw AppError.badRequest(
          `Item ${item.itemId} (${descriptions.get(item.itemId) ?? item.itemId}) needs ${kind} "${key}", which item ` +
            `${creator} creates: approve ${creator} too, or leave ${item.itemId} out`,
          { itemId: item.itemId, needs: creator },
        );
      }
    }
  }
  const chosen = items.filter((item) => approved.has(item.itemId));
  return {
    changes: mergeChangeSets(
      chosen.map((item) => item.changes),
      interrupt.preview.sheetId,
    ),
    basis: mergedBasis(
      chosen.map((item) => item.basis),
      interrupt.preview.basis?.graphRevision ?? null,
    ),
    appliedItems: chosen.map((item) => item.itemId),
    declinedItems: items.filter((item) => !approved.has(item.itemId)).map((item) => item.itemId),
  };
}

/**
 * A new message settles the pending interrupt first: a proposal as rejected, a question as
 * declined, every call after it in its batch as not processed: the tool results to commit before the message, so
 * every tool call keeps its result. A call whose decision was recorded already (applied before a crash kept its
 * commit out of the thread) gets the result of that decision instead, never "rejected".
 */
export function supersededResults(
  pending: PendingInterrupt,
  now: number,
  locale: Locale = 'en',
  decided: ReadonlyMap<string, OperationRecord> = new Map(),
  settler = new PendingInterruptSettler(undefined, locale),
): ThreadMessage[] {
  const messages = PROPOSAL_MESSAGES[locale] ?? PROPOSAL_MESSAGES.en;
  const result = (toolCallId: string, toolName: string, content: string, success = false): ThreadMessage => ({
    id: generateMessageId(now),
    role: 'tool',
    toolCallId,
    toolName,
    content,
    success,
    durationMs: 0,
    createdTime: now,
  });
  const reject = (toolCallId: string, toolName: string, message: string) =>
    result(toolCallId, toolName, proposalResultContent({ status: 'rejected', message, feedback: SUPERSEDED_FEEDBACK }));
  const { interrupt, toolName } = pending;
  const first = decided.get(interrupt.toolCallId);
  let settled: ThreadMessage;
  if (interrupt.kind === 'question')
    settled = result(interrupt.toolCallId, toolName, declinedContent(SUPERSEDED_FEEDBACK));
  else if (first) {
    const outcome = settler.outcomeOf(first, interrupt);
    settled = result(interrupt.toolCallId, toolName, proposalResultContent(outcome), outcome.status === 'approved');
  } else settled = reject(interrupt.toolCallId, toolName, messages.superseded);
  return [
    settled,
    ...pending.remainingToolCalls.map((call) => {
      const record = decided.get(call.id);
      if (!record) return reject(call.id, call.function.name, messages.notReached);
      const application = applicationOf(record);
      return result(
        call.id,
        call.function.name,
        autonomousResultContent(application, locale),
        application.status === 'applied',
      );
    }),
  ];
}

import { generateMessageId } from '../../threads/sortable-id.generator';
import { PendingInterrupt, ThreadMessage } from '../../threads/thread.types';
import { ActionApplication, CheckedAction } from '../actions/action.applier';
import { ProposalResolution } from '../agent/agent-result';
import type { Locale } from '../../config/app-config';
import {
  PROPOSAL_MESSAGES,
  ProposalMessages,
  ProposalOutcome,
  proposalResultContent,
  SUPERSEDED_FEEDBACK,
} from '../agent/tool-result.message';
import { HitlObserver } from '../hitl.observer';
import { declinedContent, settleQuestion } from '../tools/ask-user.answer';

/** Where an approved proposal is applied and recorded (AppliedActionRecorder). */
export interface ApprovedActions {
  applyApproved(action: CheckedAction): Promise<ActionApplication>;
}

/** The human's answer to a pending interrupt (POST /api/ai/resume, ai:resume), its texts already checked. */
export interface InterruptDecision {
  approved: boolean;
  feedback?: string;
  answer?: string;
}

/** A settled interrupt: the tool result the model receives and, for a proposal, how it was settled. */
export interface InterruptSettlement {
  content: string;
  /** The call did what it asked: the proposal applied (or handed to the client), the question answered. */
  success: boolean;
  resolution?: ProposalResolution;
  /** A confirm question answered yes: the run's ask_first kinds are allowed from now on (docs/policy.md). */
  confirmed?: boolean;
}

/**
 * Settles the interrupt a thread is waiting on. A proposal: rejected, or approved and applied
 * through the run's ApprovedActions (the ActionApplier: here, or handed to the client), its outcome
 * becoming the tool result the model receives (docs/protocol.md §3) and the `resolution` of the
 * answer. A question: its answer checked against it (bad_request before anything changes, so it stays
 * pending), then answered or declined (docs/protocol.md §8.2). Each outcome is reported to the
 * HitlObserver (metrics).
 */
export class PendingInterruptSettler {
  private readonly messages: ProposalMessages;

  constructor(
    private readonly hitl?: HitlObserver,
    locale: Locale = 'en',
  ) {
    this.messages = PROPOSAL_MESSAGES[locale] ?? PROPOSAL_MESSAGES.en;
  }

  async settle(
    pending: PendingInterrupt,
    decision: InterruptDecision,
    actions: ApprovedActions,
  ): Promise<InterruptSettlement> {
    const interrupt = pending.interrupt;
    const { approved, feedback } = decision;
    if (interrupt.kind === 'question') {
      const settled = settleQuestion(interrupt, decision);
      this.hitl?.interrupt(settled.status);
      return { content: settled.content, success: settled.status === 'answered', confirmed: settled.confirmed };
    }
    let outcome: ProposalOutcome;
    let appliedBy: ProposalResolution['appliedBy'] = null;
    if (!approved) {
      outcome = { status: 'rejected', message: this.messages.rejected, feedback };
    } else {
      const application = await actions.applyApproved(interrupt);
      if (application.status === 'applied') {
        appliedBy = application.appliedBy;
        const message = appliedBy === 'server' ? this.messages.appliedOnServer : this.messages.approvedForClient;
        outcome = { status: 'approved', message, feedback };
      } else {
        outcome = { status: 'failed', message: this.messages.failed(application.reason), feedback };
      }
    }
    this.hitl?.interrupt(outcome.status);
    return {
      content: proposalResultContent(outcome),
      success: outcome.status === 'approved',
      resolution: {
        toolCallId: interrupt.toolCallId,
        status: outcome.status,
        appliedBy,
        ...(appliedBy ? { changes: interrupt.preview } : {}),
        message: outcome.message,
      },
    };
  }
}

/**
 * A new message settles the pending interrupt first (docs/protocol.md §3, §8.2): a proposal as
 * rejected, a question as declined, and every call after it in its batch as not processed: the tool
 * results to commit before the message, so every tool call keeps its result.
 */
export function supersededResults(pending: PendingInterrupt, now: number, locale: Locale = 'en'): ThreadMessage[] {
  const messages = PROPOSAL_MESSAGES[locale] ?? PROPOSAL_MESSAGES.en;
  // Nothing was done for any of them: each names its call's tool, as the commit validator requires.
  const result = (toolCallId: string, toolName: string, content: string): ThreadMessage => ({
    id: generateMessageId(now),
    role: 'tool',
    toolCallId,
    toolName,
    content,
    success: false,
    durationMs: 0,
    createdTime: now,
  });
  const reject = (toolCallId: string, toolName: string, message: string) =>
    result(toolCallId, toolName, proposalResultContent({ status: 'rejected', message, feedback: SUPERSEDED_FEEDBACK }));
  const { interrupt, toolName } = pending;
  const settled =
    interrupt.kind === 'question'
      ? result(interrupt.toolCallId, toolName, declinedContent(SUPERSEDED_FEEDBACK))
      : reject(interrupt.toolCallId, toolName, messages.superseded);
  return [
    settled,
    ...pending.remainingToolCalls.map((call) => reject(call.id, call.function.name, messages.notReached)),
  ];
}

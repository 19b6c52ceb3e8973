import { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import { generateMessageId } from '../../threads/sortable-id.generator';
import { PendingInterrupt, ThreadMessage } from '../../threads/thread.types';
import { ActionApplier } from '../actions/action.applier';
import { ProposalResolution } from '../agent/agent-result';
import type { Locale } from '../../config/app-config';
import { PROPOSAL_MESSAGES, ProposalMessages, ProposalOutcome, proposalResultContent, SUPERSEDED_FEEDBACK } from '../agent/tool-result.message';
import { HitlObserver } from '../hitl.observer';

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
}

/**
 * Settles the interrupt a thread is waiting on. A proposal: rejected, or approved and applied
 * through the ActionApplier (here, or handed to the client), its outcome becoming the tool result
 * the model receives (docs/protocol.md §3, docs/protocol.md) and the `resolution` of the answer. A
 * question: answered or declined. Each outcome is reported to the HitlObserver (metrics).
 */
export class PendingInterruptSettler {
  private readonly messages: ProposalMessages;

  constructor(
    private readonly applier: ActionApplier,
    private readonly hitl?: HitlObserver,
    locale: Locale = 'en',
  ) {
    this.messages = PROPOSAL_MESSAGES[locale] ?? PROPOSAL_MESSAGES.en;
  }

  async settle(pending: PendingInterrupt, decision: InterruptDecision, dataSource: MutableGraphDataSource, graphKey: string): Promise<InterruptSettlement> {
    const interrupt = pending.interrupt;
    const { approved, feedback } = decision;
    if (interrupt.kind === 'question') {
      this.hitl?.interrupt(approved ? 'answered' : 'declined');
      return {
        content: JSON.stringify({ status: approved ? 'answered' : 'declined', answer: decision.answer ?? '', ...(feedback ? { feedback } : {}) }),
        success: approved,
      };
    }
    let outcome: ProposalOutcome;
    let appliedBy: ProposalResolution['appliedBy'] = null;
    if (!approved) {
      outcome = { status: 'rejected', message: this.messages.rejected, feedback };
    } else {
      const application = await this.applier.apply(interrupt, dataSource, graphKey);
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
 * A new message settles the pending proposal as rejected, and every call after it in its batch
 * (docs/protocol.md §3): the tool results to commit before the message, so every tool call keeps its result.
 */
export function supersededResults(pending: PendingInterrupt, now: number, locale: Locale = 'en'): ThreadMessage[] {
  const messages = PROPOSAL_MESSAGES[locale] ?? PROPOSAL_MESSAGES.en;
  const reject = (toolCallId: string, toolName: string, message: string): ThreadMessage => ({
    id: generateMessageId(now),
    role: 'tool',
    toolCallId,
    toolName,
    content: proposalResultContent({ status: 'rejected', message, feedback: SUPERSEDED_FEEDBACK }),
    success: false,
    durationMs: 0,
    createdTime: now,
  });
  return [
    reject(pending.interrupt.toolCallId, pending.toolName, messages.superseded),
    ...pending.remainingToolCalls.map((call) => reject(call.id, call.function.name, messages.notReached)),
  ];
}

import type { UsageTotals } from '../../threads/thread.types';
import { ActionConversionResult } from '../../conversation/action-conversion-result';
import { Interrupt, PromptEstimate } from '../../conversation/interrupt';
import type { ChangedDocument } from '../../conversation/proposal-preview';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { CheckedAction } from '../actions/checked-action';

/** Usage reported in every terminal answer: this request's upstream tokens, cost and calls (the totals a thread adds up). */
export interface UsageReport extends UsageTotals {
  /** True when part of the figures was estimated with a tokenizer (aborted before usage arrived). */
  estimated?: boolean;
}

export interface ToolCallSummary {
  id: string;
  name: string;
  arguments: string;
  /**
   * 'executed' (read tool ran), 'error' (bad or refused call, the model was told), 'proposed' (write tool →
   * approval interrupt), 'applied' (write tool applied without a human by the action policy), 'asked'
   * (ask_user → question interrupt).
   */
  status: 'executed' | 'error' | 'proposed' | 'applied' | 'asked';
}

/**
 * How the proposal answered by a resume was settled (resume results only). With
 * HITL_APPLY=client the caller applies `changes` through its own sync pipeline (de-duplicating on `operationId`);
 * with server they were applied here.
 */
export interface ProposalResolution {
  toolCallId: string;
  status: 'approved' | 'rejected' | 'failed' | 'stale';
  /** The decision's operation: the same on every retry of it. */
  operationId: string;
  /** server: applied by this service; client: to be applied by the caller; null: nothing to apply. */
  appliedBy: 'server' | 'client' | null;
  /** The change set applied (server) or to apply (client): the interrupt's preview, or the approved items'. */
  changes?: ActionConversionResult;
  /** What the model was told (failed: with the reason). */
  message: string;
  /** stale: what changed since the proposal. */
  changed?: ChangedDocument[];
  /** Part of a batch approved: its items applied and declined. */
  appliedItems?: string[];
  declinedItems?: string[];
}

/** What a request wrote besides its messages: present only when not empty. */
export interface RunRecords {
  /** The thread events written by this request, in order (DATA_ADDED, ACTIONS_EXECUTED). */
  events?: ThreadEvent[];
  /** HITL_APPLY=client: the actions applied without a human that the caller's editor must apply (as `ai:apply`). */
  actions?: CheckedAction[];
}

/** The answer of POST /api/ai/chat and /api/ai/resume. */
export type AgentResult = RunRecords &
  (
    | {
        threadId: string;
        type: 'message';
        message: string;
        toolCalls: ToolCallSummary[];
        usage: UsageReport;
        aborted?: true;
        /** Stopped by a message sent with multitaskStrategy `rollback`: its turn was removed from the thread. */
        rolledBack?: true;
        resolution?: ProposalResolution;
        /**
         * Nothing was sent upstream: the user declined the confirmation of a large prompt, or an automation's prompt
         * was over the limit (its run is skipped_too_large).
         */
        notSent?: { reason: 'declined' | 'too_large'; estimate: PromptEstimate };
      }
    | {
        threadId: string;
        type: 'interrupt';
        message: string;
        interrupt: Interrupt;
        toolCalls: ToolCallSummary[];
        usage: UsageReport;
        resolution?: ProposalResolution;
      }
  );

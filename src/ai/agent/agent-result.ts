import type { UsageTotals } from '../../threads/thread.types';
import { ActionConversionResult } from '../../conversation/action-conversion-result';
import { Interrupt } from '../../conversation/interrupt';

/** Usage reported in every terminal answer: this request's upstream tokens, cost and calls (the totals a thread adds up). */
export interface UsageReport extends UsageTotals {
  /** True when part of the figures was estimated with a tokenizer (aborted before usage arrived). */
  estimated?: boolean;
}

export interface ToolCallSummary {
  id: string;
  name: string;
  arguments: string;
  /** 'executed' (read tool ran), 'error' (bad call, the model was told), 'proposed' (write tool → interrupt). */
  status: 'executed' | 'error' | 'proposed';
}

/**
 * How the proposal answered by a resume was settled (resume results only). With HITL_APPLY=client
 * the caller applies `changes` through its own sync pipeline; with server they were applied here.
 */
export interface ProposalResolution {
  toolCallId: string;
  status: 'approved' | 'rejected' | 'failed';
  /** server: applied by this service; client: to be applied by the caller; null: nothing to apply. */
  appliedBy: 'server' | 'client' | null;
  /** The change set applied (server) or to apply (client): the interrupt's preview. */
  changes?: ActionConversionResult;
  /** What the model was told (failed: with the reason). */
  message: string;
}

/** The answer of POST /api/ai/chat and /api/ai/resume (docs/protocol.md §3). */
export type AgentResult =
  | {
      threadId: string;
      type: 'message';
      message: string;
      toolCalls: ToolCallSummary[];
      usage: UsageReport;
      aborted?: true;
      resolution?: ProposalResolution;
    }
  | {
      threadId: string;
      type: 'interrupt';
      message: string;
      interrupt: Interrupt;
      toolCalls: ToolCallSummary[];
      usage: UsageReport;
      resolution?: ProposalResolution;
    };

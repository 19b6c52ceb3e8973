import { Interrupt } from './interrupt';

/** Usage reported in every terminal answer: this request's upstream tokens and cost. */
export interface UsageReport {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  costUsd: number;
  /** Upstream calls made by this request. */
  llmCalls: number;
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

/** The answer of POST /api/ai/chat and /api/ai/resume (PROTOCOL.md §3). */
export type AgentResult =
  | { threadId: string; type: 'message'; message: string; toolCalls: ToolCallSummary[]; usage: UsageReport; aborted?: true }
  | {
      threadId: string;
      type: 'interrupt';
      message: string;
      interrupt: Interrupt;
      toolCalls: ToolCallSummary[];
      usage: UsageReport;
    };

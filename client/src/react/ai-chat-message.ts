import type { ErrorCode, Interrupt, MessageSegment, ThreadEvent, UsageReport } from '../protocol';

/** A tool call shown as a badge on an assistant message. */
export interface AIToolCall {
  toolCallId: string;
  toolName: string;
  status: 'running' | 'done';
  /** The tool's result as the model got it (possibly truncated by the service). */
  result?: string;
}

/** One message of the chat as the hook and the components see it. */
export interface AIChatMessage {
  /** Local id (stable across re-renders; not the service's). */
  id: string;
  /** `event`: a thread event (docs/protocol.md §8.3), shown as a system line. */
  role: 'user' | 'assistant' | 'event';
  content: string;
  createdTime: number;
  toolCalls?: AIToolCall[];
  /** The answer is still streaming. */
  streaming?: boolean;
  /** The proposal or question this answer stopped on. */
  interrupt?: Interrupt;
  /** The interrupt was answered (approve, reject or an answer sent). */
  interruptAnswered?: boolean;
  /** This request's usage and cost (ai:complete). */
  usage?: UsageReport;
  /** Stopped by the user or a disconnect; `content` is the partial text. */
  aborted?: boolean;
  /** The request failed: the text for the user, its code and whether a retry may work. */
  error?: string;
  errorCode?: ErrorCode;
  retryable?: boolean;
  event?: ThreadEvent;
  /** A user message composed with blocks (docs/protocol.md §9.6): rendered with its chips. */
  segments?: MessageSegment[];
}

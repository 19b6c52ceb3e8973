import type { ActionConversionResult } from '../conversation/action-conversion-result';
import type { Interrupt } from '../conversation/interrupt';
import type { LlmToolCall } from '../conversation/llm-message';
import type { ProposalBasis } from '../conversation/proposal-preview';
import type { MessageSegment } from '../conversation/rich-message';
import type { ThreadEvent } from '../conversation/thread-event';
import type { ActingIdentity } from '../policy/acting-identity';
import type { PolicySnapshot } from '../policy/action-policy';

/**
 * One stored message of a conversation, in the internal (OpenAI) shape plus a stable id and a
 * timestamp (later features — memory, summaries — key on them).
 */
export interface ThreadMessage {
  id: string;
  /**
   * The thread it belongs to: set by ThreadService on every message it
   * commits and by the repositories on every message they read (SQLite: from the row's thread column).
   */
  threadId?: string;
  role: 'system' | 'user' | 'assistant' | 'tool' | 'event';
  /** For system messages: the stable system prompt, or the retrieved context of one question. */
  kind?: 'system_prompt' | 'rag_context';
  content: string | null;
  /** assistant: the tool calls it made. */
  toolCalls?: LlmToolCall[];
  /** tool: the call this message answers. */
  toolCallId?: string;
  /** tool: the name of the tool that call named (the agent commits it with every result; older stored results may lack it). */
  toolName?: string;
  /** tool: the call did what it asked (a read ran, a decision was applied), false for an error result. */
  success?: boolean;
  /** tool: how long producing the result took, in ms. */
  durationMs?: number;
  createdTime: number;
  /** assistant: generation stopped by the user or a disconnect; content is the partial text. */
  aborted?: true;
  /** event: what was loaded or applied (content is its summary). */
  event?: ThreadEvent;
  /** user: the rich message as composed (text and blocks); content is its linear text. */
  segments?: MessageSegment[];
}

/** A proposal waiting for a human, and what to do after it (the rest of the model's tool-call batch). */
export interface PendingInterrupt {
  interrupt: Interrupt;
  toolName: string;
  /** Tool calls of the same assistant message that come after the interrupting one. */
  remainingToolCalls: LlmToolCall[];
  createdTime: number;
  /** The action policy of the run that stopped here: its resume continues with it. */
  policy?: PolicySnapshot;
  /** Who the run acts as: its resume continues as it. */
  acting?: ActingIdentity;
  /** A batch proposal: each item's change set and basis, for approving some of them. */
  items?: PendingItem[];
  /**
   * Who made the proposal: absent, the service's own model, whose run goes on after the decision; `mcp`, an MCP
   * client's call: the decision is applied and recorded, and no model runs after it (the one that proposed is the
   * client's).
   */
  origin?: 'mcp';
  /**
   * The service asks whether to send the question's prompt, larger than the configured limit: no model call waits
   * for a result (a yes runs the question, a no ends it without an upstream call).
   */
  confirmsSend?: true;
}

/** One item of a pending batch proposal: what approving it applies, and what it was made against. */
export interface PendingItem {
  itemId: string;
  changes: ActionConversionResult;
  basis: ProposalBasis;
}

/** Accumulated upstream usage (of a request, a thread or a workspace). */
export interface UsageTotals {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  costUsd: number;
  /** Upstream calls made. */
  llmCalls: number;
}

/**
 * A person's conversation, or the run of an automation (no socket; its owner
 * is the automation's creator, and every editor and admin of the workspace may answer its interrupts).
 */
export type ThreadType = 'chat' | 'automation';

/** The thread document (Nodius's AIThreadDocument plus title, revision and usage). */
export interface ThreadRecord {
  threadId: string;
  workspace: string;
  userId: string;
  graphKey: string;
  title: string;
  type: ThreadType;
  /** The automation whose run this thread is (type automation only). */
  automationId?: string;
  messages: ThreadMessage[];
  pendingInterrupt: PendingInterrupt | null;
  /** Bumped by every commit; commits are checked against it (optimistic concurrency). */
  revision: number;
  usage: UsageTotals;
  createdTime: number;
  lastUpdatedTime: number;
}

/** POST /api/ai/threads entries. */
export interface ThreadSummary {
  threadId: string;
  graphKey: string;
  title: string;
  type: ThreadType;
  automationId?: string;
  createdTime: number;
  lastUpdatedTime: number;
  messageCount: number;
  pendingInterrupt: boolean;
}

/** A thread waiting for a human (the approval queue, GET /api/ai/approvals): its pending interrupt and where it is. */
export interface PendingThread {
  threadId: string;
  type: ThreadType;
  automationId?: string;
  userId: string;
  graphKey: string;
  pendingInterrupt: PendingInterrupt;
}

/**
 * One atomic write to a thread: a round's messages (the assistant message with its tool
 * calls and all their results) plus the interrupt state, checked against `expectedRevision` and
 * idempotent by `operationId` (a replay changes nothing).
 */
export interface ThreadCommit {
  operationId: string;
  expectedRevision: number;
  /**
   * Removes the message with this id and every later one before appending (a run's turn rolled back); an id that is
   * not among the thread's messages removes nothing.
   */
  discardFrom?: string;
  append: ThreadMessage[];
  /** undefined leaves it as is; null clears it. */
  pendingInterrupt?: PendingInterrupt | null;
  title?: string;
}

export interface ThreadCommitResult {
  /** False when this operationId was already applied (replay): nothing changed. */
  applied: boolean;
  revision: number;
  /** The stored lastUpdatedTime after the commit (unchanged on a replay). */
  lastUpdatedTime: number;
}

/** The parts of a thread that change without its messages being read: see ThreadRepository.getHead. */
export interface ThreadHead {
  revision: number;
  usage: UsageTotals;
}

export const EMPTY_USAGE: UsageTotals = Object.freeze({
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  totalTokens: 0,
  costUsd: 0,
  llmCalls: 0,
});

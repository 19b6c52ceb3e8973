import type { MessageSegment } from '../conversation/rich-message';
import type { RunBudget } from './agent/agent-run';
import type { ActingIdentity } from './authority/acting-identity';
import type { MultitaskStrategy } from './multitask-strategy';

/**
 * What the transports hand to the use cases (validated shapes of POST /api/ai/chat, /api/ai/resume and the undo and
 * restore routes, and of the matching socket events, without `_id` and `token`).
 */

/** Most node keys one message may pin, and the longest key (checked by the DTOs and again by the use cases). */
export const MENTIONS_MAX = 50;
export const MENTION_MAX_CHARS = 200;

/** Bounds of a rich message (docs/protocol.md §9.6), checked by the DTOs and again by the use cases. */
export const SEGMENTS_MAX = 100;
/** Most blocks one message may attach: each is resolved into data of its own. */
export const BLOCKS_MAX = 20;
/** Longest preview of a block (the readable line of its chip). */
export const PREVIEW_MAX_CHARS = 200;
/** Most node keys, and most edge keys, one pointer block may name (a canvas selection). */
export const POINTER_KEYS_MAX = 100;

export interface ChatInput {
  graphKey: string;
  /**
   * 1 to MESSAGE_MAX_CHARS characters (not only whitespace); optional with `segments`, whose text and blocks then
   * follow it.
   */
  message?: string;
  /** A rich message: text and blocks (docs/protocol.md §9.6). */
  segments?: MessageSegment[];
  /** Continue this thread; absent: a new thread is created (title from the message). */
  threadId?: string;
  /** Node keys pinned by the user: always in the context, ahead of search hits; unknown keys are listed as not found. */
  mentions?: string[];
  /** What the message does while a run is active on its thread (absent: reject). */
  multitaskStrategy?: MultitaskStrategy;
}

export interface ResumeInput {
  threadId: string;
  approved: boolean;
  /** Told to the model with the decision (a rejection's reason, a remark on an approval). */
  feedback?: string;
  /** The answer to a `choice` question (one of its options); absent for a proposal and a confirm question. */
  answer?: string;
  /** A batch proposal: the items approved, the others declined; absent: the whole proposal. */
  approvedItems?: string[];
  /** The interrupt the decision is for (its tool call); another one pending → conflict, nothing decided. */
  toolCallId?: string;
}

/** POST /api/ai/thread/:threadId/undo, `ai:undo`. */
export interface UndoInput {
  threadId: string;
  /** The message whose changes are reverted; absent: the latest assistant message that applied anything. */
  messageId?: string;
}

/** POST /api/ai/thread/:threadId/restore, `ai:restore`: everything the assistant applied after `messageId` reverted. */
export interface RestoreInput {
  threadId: string;
  messageId: string;
}

/** One run of an automation (RunAutomation). */
export interface AutomationRunInput {
  /**
   * Who the run acts as: the automation's creator (the owner of the run's thread) with the run's role, on
   * behalf of the creator.
   */
  acting: ActingIdentity & { automation: NonNullable<ActingIdentity['automation']> };
  graphKey: string;
  /** The prompt with its placeholders resolved: the thread's question. */
  prompt: string;
  title: string;
  /** The automation's own provider configuration; absent: the workspace's active one. */
  providerConfigId?: string;
  /** The run's own budget, checked before every upstream call with its usage so far. */
  budget?: RunBudget;
}

/** The ChatInput fields of a validated transport message (REST body, `ai:chat`): never its `_id` or `token`. */
export function chatInputOf(request: ChatInput): ChatInput {
  return {
    graphKey: request.graphKey,
    message: request.message,
    segments: request.segments,
    threadId: request.threadId,
    mentions: request.mentions,
    multitaskStrategy: request.multitaskStrategy,
  };
}

/** The ResumeInput fields of a validated transport message (REST body, `ai:resume`): never its `_id` or `token`. */
export function resumeInputOf(request: ResumeInput): ResumeInput {
  return {
    threadId: request.threadId,
    approved: request.approved,
    feedback: request.feedback,
    answer: request.answer,
    approvedItems: request.approvedItems,
  };
}

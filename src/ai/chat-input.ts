import type { Principal } from '../auth/principal';
import type { UsageTotals } from '../threads/thread.types';

/**
 * What the transports hand to ChatService (validated shapes of POST /api/ai/chat and /api/ai/resume,
 * and of the `ai:chat` / `ai:resume` socket events, without `_id` and `token`).
 */

/** Most node keys one message may pin, and the longest key (checked by the DTOs and again by ChatService). */
export const MENTIONS_MAX = 50;
export const MENTION_MAX_CHARS = 200;

export interface ChatInput {
  graphKey: string;
  /** 1 to MESSAGE_MAX_CHARS characters (not only whitespace). */
  message: string;
  /** Continue this thread; absent: a new thread is created (title from the message). */
  threadId?: string;
  /** Node keys pinned by the user: always in the context, ahead of search hits; unknown keys are skipped. */
  mentions?: string[];
}

export interface ResumeInput {
  threadId: string;
  approved: boolean;
  /** Told to the model with the decision (a rejection's reason, a remark on an approval). */
  feedback?: string;
  /** The answer to a `question` interrupt (reserved: today's interrupts are approvals, which ignore it). */
  answer?: string;
}

/** One run of an automation (ChatService.runAutomation, docs/automations.md). */
export interface AutomationRunInput {
  /** The automation's creator: the owner of the run's thread, whose role the policy applies. */
  principal: Principal;
  graphKey: string;
  automationId: string;
  /** The prompt with its placeholders resolved: the thread's question. */
  prompt: string;
  title: string;
  /** The automation's own provider configuration; absent: the workspace's active one. */
  providerConfigId?: string;
  /** Throws budget_exceeded when the run's own budget is spent (given its usage so far); checked before every upstream call. */
  assertBudget?: (usage: UsageTotals) => void;
}

/** The ChatInput fields of a validated transport message (REST body, `ai:chat`): never its `_id` or `token`. */
export function chatInputOf(request: ChatInput): ChatInput {
  return {
    graphKey: request.graphKey,
    message: request.message,
    threadId: request.threadId,
    mentions: request.mentions,
  };
}

/** The ResumeInput fields of a validated transport message (REST body, `ai:resume`): never its `_id` or `token`. */
export function resumeInputOf(request: ResumeInput): ResumeInput {
  return { threadId: request.threadId, approved: request.approved, feedback: request.feedback, answer: request.answer };
}

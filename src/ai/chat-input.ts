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

/** The ChatInput fields of a validated transport message (REST body, `ai:chat`): never its `_id` or `token`. */
export function chatInputOf(request: ChatInput): ChatInput {
  return { graphKey: request.graphKey, message: request.message, threadId: request.threadId, mentions: request.mentions };
}

/** The ResumeInput fields of a validated transport message (REST body, `ai:resume`): never its `_id` or `token`. */
export function resumeInputOf(request: ResumeInput): ResumeInput {
  return { threadId: request.threadId, approved: request.approved, feedback: request.feedback, answer: request.answer };
}

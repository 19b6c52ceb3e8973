import { AppError } from '../../errors/app-error';
import type { PendingInterrupt } from '../../threads/thread.types';
import { isThreadIdShape } from '../../threads/sortable-id.generator';
import type { ChatInput, ResumeInput } from '../chat-input';

/** What one POST /api/ai/ui-chat asks: a message (a new thread or the next turn), or the decision on what is pending. */
export type UiChatTurn =
  { kind: 'chat'; input: ChatInput } | { kind: 'resume'; input: ResumeInput; decision: 'approval' | 'answer' };

type UiPart = Record<string, unknown> & { type?: unknown };
type UiMessage = { role?: unknown; parts?: unknown; metadata?: unknown };

/**
 * The thread a request is about: `id` when it is a thread id (a chat opened on one of your threads), else the
 * `threadId` the service put in the metadata of the latest assistant message (a conversation useChat began with an id
 * of its own), else none (a new thread). Whichever, the thread is then loaded as its owner's (404 otherwise).
 */
export function threadIdOf(id: string, messages: readonly Record<string, unknown>[]): string | undefined {
  if (isThreadIdShape(id)) return id;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as UiMessage;
    if (message.role !== 'assistant' || !isRecord(message.metadata)) continue;
    const threadId = message.metadata.threadId;
    if (typeof threadId === 'string' && isThreadIdShape(threadId)) return threadId;
  }
  return undefined;
}

/**
 * The turn of a request, from its last message and the thread's pending interrupt:
 * - an assistant message whose tool part for the pending proposal is `approval-responded` (useChat's
 *   `addToolApprovalResponse`, then `sendAutomaticallyWhen`): the proposal approved or rejected, `approval.reason`
 *   as feedback;
 * - a user message with a `data-answer` part `{ toolCallId, approved, answer? }`: the answer to the pending question;
 * - a user message with text: a message (a pending interrupt is then settled by it, as in the chat).
 * Anything else is 400; a decision for an interrupt that is not the pending one is 409.
 */
export function readUiChatTurn(
  messages: readonly Record<string, unknown>[],
  graphKey: string,
  threadId: string | undefined,
  pending: PendingInterrupt | null,
): UiChatTurn {
  const last = messages[messages.length - 1] as UiMessage;
  const parts = Array.isArray(last.parts) ? (last.parts as unknown[]).filter(isRecord) : null;
  if (!parts) throw AppError.badRequest('messages: the last message has no parts');
  if (last.role === 'assistant') {
    const candidates = parts.filter((part) => isToolPart(part) && part.state === 'approval-responded');
    const responded =
      candidates.find((part) => part.toolCallId === pending?.interrupt.toolCallId) ?? candidates[candidates.length - 1];
    if (!responded || !threadId)
      throw AppError.badRequest('messages: the last assistant message answers no proposal (approval-responded)');
    const approval = isRecord(responded.approval) ? responded.approval : {};
    const toolCallId = responded.toolCallId;
    if (typeof toolCallId !== 'string' || typeof approval.approved !== 'boolean')
      throw AppError.badRequest('messages: an approval-responded part needs toolCallId and approval.approved');
    expectPending(pending, toolCallId, 'approval');
    return {
      kind: 'resume',
      decision: 'approval',
      input: {
        threadId,
        approved: approval.approved,
        toolCallId,
        ...(typeof approval.reason === 'string' && approval.reason.length > 0 ? { feedback: approval.reason } : {}),
      },
    };
  }
  if (last.role !== 'user') throw AppError.badRequest("messages: the last message must be the user's or an approval");
  const answer = parts.find((part) => part.type === 'data-answer');
  if (answer) {
    const data = isRecord(answer.data) ? answer.data : {};
    if (!threadId) throw AppError.conflict('No pending question to answer');
    if (typeof data.toolCallId !== 'string' || typeof data.approved !== 'boolean')
      throw AppError.badRequest('messages: a data-answer part needs data.toolCallId and data.approved');
    if (data.answer !== undefined && typeof data.answer !== 'string')
      throw AppError.badRequest('messages: data-answer.answer must be a string');
    expectPending(pending, data.toolCallId, 'question');
    return {
      kind: 'resume',
      decision: 'answer',
      input: {
        threadId,
        approved: data.approved,
        toolCallId: data.toolCallId,
        ...(typeof data.answer === 'string' ? { answer: data.answer } : {}),
      },
    };
  }
  const text = parts
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
  if (text.trim().length === 0) throw AppError.badRequest('messages: the last user message has no text');
  return { kind: 'chat', input: { graphKey, message: text, ...(threadId ? { threadId } : {}) } };
}

function expectPending(pending: PendingInterrupt | null, toolCallId: string, kind: 'approval' | 'question'): void {
  if (!pending || pending.interrupt.toolCallId !== toolCallId || pending.interrupt.kind !== kind)
    throw AppError.conflict(`No pending ${kind === 'approval' ? 'proposal' : 'question'} ${toolCallId} on this thread`);
}

function isToolPart(part: UiPart): boolean {
  return part.type === 'dynamic-tool' || (typeof part.type === 'string' && part.type.startsWith('tool-'));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

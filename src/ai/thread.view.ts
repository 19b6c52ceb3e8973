import type { MessageSegment } from '../conversation/rich-message';
import type { ThreadEvent } from '../conversation/thread-event';
import type { ThreadRecord, ThreadType, UsageTotals } from '../threads/thread.types';
import { Interrupt } from '../conversation/interrupt';

/** A message as clients see it (GET /api/ai/thread/:threadId), thread events included. */
export interface ChatMessageView {
  /** The message's id: what undo and restore name. */
  id: string;
  role: 'user' | 'assistant' | 'tool' | 'event';
  content: string;
  event?: ThreadEvent;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
  createdTime: number;
  aborted?: true;
  /** A user message composed with blocks: its segments as sent (`content` is their linear text). */
  segments?: MessageSegment[];
}

export interface ThreadView {
  threadId: string;
  graphKey: string;
  title: string;
  /** A chat, or the run of an automation (then `automationId`). */
  type: ThreadType;
  automationId?: string;
  messages: ChatMessageView[];
  /** The proposal waiting for approval, or null. */
  pendingInterrupt: Interrupt | null;
  usage: UsageTotals;
}

/** The stored thread as clients see it: system prompt and retrieved contexts left out. */
export function toThreadView(record: ThreadRecord): ThreadView {
  const messages: ChatMessageView[] = [];
  for (const message of record.messages) {
    if (message.role === 'system') continue;
    const view: ChatMessageView = {
      id: message.id,
      role: message.role,
      content: message.content ?? '',
      createdTime: message.createdTime,
    };
    if (message.toolCalls?.length) {
      view.toolCalls = message.toolCalls.map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      }));
    }
    if (message.toolCallId) view.toolCallId = message.toolCallId;
    if (message.aborted) view.aborted = true;
    if (message.role === 'event' && message.event) view.event = message.event;
    if (message.role === 'user' && message.segments) view.segments = message.segments;
    messages.push(view);
  }
  return {
    threadId: record.threadId,
    graphKey: record.graphKey,
    title: record.title,
    type: record.type,
    ...(record.automationId ? { automationId: record.automationId } : {}),
    messages,
    pendingInterrupt: record.pendingInterrupt?.interrupt ?? null,
    usage: { ...record.usage },
  };
}

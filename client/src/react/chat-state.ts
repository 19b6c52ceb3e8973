import type { AiRequestError } from '../ai-request';
import type { AiCompleteEvent, ChatMessageView, Interrupt, MessageSegment, ThreadEvent, ThreadView } from '../protocol';
import type { AIChatMessage, AIToolCall } from './ai-chat-message';

export interface ChatState {
  messages: AIChatMessage[];
  threadId: string | null;
}

export const initialChatState: ChatState = { messages: [], threadId: null };

export type ChatAction =
  | { type: 'user_message'; id: string; text: string; createdTime: number; segments?: MessageSegment[] }
  | { type: 'request_started'; assistantId: string; createdTime: number }
  | { type: 'retry_started'; assistantId: string }
  | { type: 'thread'; threadId: string }
  | { type: 'text'; assistantId: string; delta: string }
  | { type: 'tool_start'; assistantId: string; toolCallId: string; toolName: string }
  | { type: 'tool_result'; assistantId: string; toolCallId: string; result: string }
  | { type: 'event'; assistantId: string; id: string; event: ThreadEvent; createdTime: number }
  | { type: 'complete'; assistantId: string; event: AiCompleteEvent }
  | { type: 'error'; assistantId: string; error: AiRequestError }
  | { type: 'interrupt_answered' }
  | { type: 'loaded'; thread: ThreadView }
  | { type: 'reset' };

function updateMessage(state: ChatState, id: string, update: (message: AIChatMessage) => AIChatMessage): ChatState {
  return { ...state, messages: state.messages.map((message) => (message.id === id ? update(message) : message)) };
}

/** The chat's state transitions, pure (useAIChat runs them with useReducer). */
/**
 * The conversation without a rolled-back turn (docs/protocol.md §9.7): its answer and the user message it answered,
 * as the thread no longer holds them.
 */
function withoutTurn(state: ChatState, assistantId: string): ChatState {
  const at = state.messages.findIndex((message) => message.id === assistantId);
  if (at < 0) return state;
  let question = at - 1;
  while (question >= 0 && state.messages[question].role !== 'user') question -= 1;
  const removed = new Set([assistantId, ...(question >= 0 ? [state.messages[question].id] : [])]);
  return { ...state, messages: state.messages.filter((message) => !removed.has(message.id)) };
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'user_message':
      return {
        ...state,
        messages: [
          ...state.messages,
          {
            id: action.id,
            role: 'user',
            content: action.text,
            createdTime: action.createdTime,
            ...(action.segments ? { segments: action.segments } : {}),
          },
        ],
      };
    case 'request_started':
      return {
        ...state,
        messages: [
          ...state.messages,
          { id: action.assistantId, role: 'assistant', content: '', createdTime: action.createdTime, streaming: true },
        ],
      };
    case 'retry_started':
      return updateMessage(state, action.assistantId, (message) => ({
        id: message.id,
        role: 'assistant',
        content: '',
        createdTime: message.createdTime,
        streaming: true,
      }));
    case 'thread':
      return state.threadId === action.threadId ? state : { ...state, threadId: action.threadId };
    case 'text':
      return updateMessage(state, action.assistantId, (message) => ({
        ...message,
        content: message.content + action.delta,
      }));
    case 'tool_start':
      return updateMessage(state, action.assistantId, (message) => ({
        ...message,
        toolCalls: [
          ...(message.toolCalls ?? []),
          { toolCallId: action.toolCallId, toolName: action.toolName, status: 'running' },
        ],
      }));
    case 'tool_result':
      return updateMessage(state, action.assistantId, (message) => ({
        ...message,
        toolCalls: (message.toolCalls ?? []).map((call) =>
          call.toolCallId === action.toolCallId ? { ...call, status: 'done', result: action.result } : call,
        ),
      }));
    case 'event': {
      // Shown before the answer it belongs to (DATA_ADDED is what the question loaded).
      const index = state.messages.findIndex((message) => message.id === action.assistantId);
      const line: AIChatMessage = {
        id: action.id,
        role: 'event',
        content: action.event.summary,
        event: action.event,
        createdTime: action.createdTime,
      };
      const messages = [...state.messages];
      messages.splice(index < 0 ? messages.length : index, 0, line);
      return { ...state, messages };
    }
    case 'complete': {
      const { event } = action;
      if (event.rolledBack) return withoutTurn({ ...state, threadId: event.threadId }, action.assistantId);
      return updateMessage({ ...state, threadId: event.threadId }, action.assistantId, (message) => ({
        ...message,
        content: event.fullText,
        streaming: false,
        usage: event.usage,
        ...(event.interrupt ? { interrupt: event.interrupt } : {}),
        ...(event.aborted ? { aborted: true } : {}),
      }));
    }
    case 'error':
      return updateMessage(state, action.assistantId, (message) => ({
        ...message,
        streaming: false,
        error: action.error.error,
        errorCode: action.error.code,
        retryable: action.error.retryable,
      }));
    case 'interrupt_answered':
      return {
        ...state,
        messages: state.messages.map((message) =>
          message.interrupt && !message.interruptAnswered ? { ...message, interruptAnswered: true } : message,
        ),
      };
    case 'loaded':
      return { threadId: action.thread.threadId, messages: messagesOfThread(action.thread) };
    case 'reset':
      return initialChatState;
  }
}

/** The interrupt the last answer stopped on, while nobody answered it (the panel finds it in the messages). */
export function pendingInterruptOf(messages: AIChatMessage[], isTyping: boolean): Interrupt | null {
  const last = messages[messages.length - 1];
  return !isTyping && last?.role === 'assistant' && last.interrupt && !last.interruptAnswered ? last.interrupt : null;
}

/** A stored thread (GET /api/ai/thread/:id) as chat messages: tool results on their badges, the pending interrupt on the last answer. */
export function messagesOfThread(thread: ThreadView): AIChatMessage[] {
  const results = new Map<string, string>();
  for (const message of thread.messages)
    if (message.role === 'tool' && message.toolCallId) results.set(message.toolCallId, message.content);
  const messages: AIChatMessage[] = [];
  thread.messages.forEach((view: ChatMessageView, index) => {
    const id = `${thread.threadId}:${index}`;
    const role: string = view.role;
    const event = (view as { event?: ThreadEvent }).event;
    if (role === 'event' && event) {
      // docs/protocol.md §8.3 adds this role to the stored messages.
      messages.push({ id, role: 'event', content: view.content, event, createdTime: view.createdTime });
      return;
    }
    if (view.role === 'user')
      messages.push({
        id,
        role: 'user',
        content: view.content,
        createdTime: view.createdTime,
        ...(view.segments ? { segments: view.segments } : {}),
      });
    if (view.role !== 'assistant') return;
    const toolCalls: AIToolCall[] | undefined = view.toolCalls?.map((call) => ({
      toolCallId: call.id,
      toolName: call.name,
      status: 'done',
      ...(results.has(call.id) ? { result: results.get(call.id) } : {}),
    }));
    const previous = messages[messages.length - 1];
    // One answer may span several stored rounds (tool calls, then text): show them as one message, as streamed.
    if (previous?.role === 'assistant' && !previous.aborted) {
      messages[messages.length - 1] = {
        ...previous,
        content:
          previous.content && view.content
            ? `${previous.content}\n\n${view.content}`
            : previous.content || view.content,
        toolCalls: [...(previous.toolCalls ?? []), ...(toolCalls ?? [])],
        ...(view.aborted ? { aborted: true } : {}),
      };
      return;
    }
    messages.push({
      id,
      role: 'assistant',
      content: view.content,
      createdTime: view.createdTime,
      ...(toolCalls?.length ? { toolCalls } : {}),
      ...(view.aborted ? { aborted: true } : {}),
    });
  });
  const last = messages[messages.length - 1];
  if (thread.pendingInterrupt) {
    if (last?.role === 'assistant') messages[messages.length - 1] = { ...last, interrupt: thread.pendingInterrupt };
    else
      messages.push({
        id: `${thread.threadId}:pending`,
        role: 'assistant',
        content: '',
        createdTime: Date.now(),
        interrupt: thread.pendingInterrupt,
      });
  }
  return messages;
}

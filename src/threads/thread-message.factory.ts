import type { LlmMessage } from '../conversation/llm-message';
import { generateMessageId } from './sortable-id.generator';
import type { ThreadEvent } from '../conversation/thread-event';
import type { ThreadMessage } from './thread.types';

export interface ThreadMessageOptions {
  /** System messages: what it is. Default: the prompt when it carries `cacheBreakpoint`, else a RAG context. */
  kind?: ThreadMessage['kind'];
  /** Assistant: the generation was stopped; the content is the partial text. */
  aborted?: boolean;
  createdTime?: number;
}

/**
 * A model-format message (what the loop produced) → a message to commit: a stable sortable id, a
 * timestamp, tool calls and tool-call ids in the stored shape, a tool result's name, success and
 * duration. `cacheBreakpoint` is a sending concern and is not stored; the thread id is stamped by
 * ThreadService.commit.
 */
export function toThreadMessage(message: LlmMessage, options: ThreadMessageOptions = {}): ThreadMessage {
  const createdTime = options.createdTime ?? Date.now();
  const base = { id: generateMessageId(createdTime), createdTime };
  switch (message.role) {
    case 'system':
      return {
        ...base,
        role: 'system',
        kind: options.kind ?? (message.cacheBreakpoint ? 'system_prompt' : 'rag_context'),
        content: message.content,
      };
    case 'user':
      return { ...base, role: 'user', content: message.content };
    case 'tool': {
      const stored: ThreadMessage = {
        ...base,
        role: 'tool',
        content: message.content,
        toolCallId: message.tool_call_id,
      };
      if (message.name !== undefined) stored.toolName = message.name;
      if (message.success !== undefined) stored.success = message.success;
      if (message.durationMs !== undefined) stored.durationMs = message.durationMs;
      return stored;
    }
    case 'assistant': {
      const stored: ThreadMessage = { ...base, role: 'assistant', content: message.content };
      if (message.tool_calls && message.tool_calls.length > 0) {
        stored.toolCalls = message.tool_calls.map((call) => ({ ...call, function: { ...call.function } }));
      }
      if (options.aborted) stored.aborted = true;
      return stored;
    }
  }
}

/** A thread event → the message that stores it: its summary as content. */
export function toEventMessage(event: ThreadEvent, createdTime = Date.now()): ThreadMessage {
  return { id: generateMessageId(createdTime), role: 'event', content: event.summary, event, createdTime };
}

import type { LlmAssistantMessage, LlmMessage } from '../../conversation/llm-message';
import type { ThreadMessage } from '../thread.types';
import { currentContextIndex, isSystemPrompt } from './rag-context.locator';
import { renderThreadEvent } from './thread-event.renderer';

/**
 * Stored thread messages → what the model is sent, in order:
 *   1. the stable system prompt, first, marked `cacheBreakpoint` (end of the cacheable prefix);
 *   2. the conversation, with every per-question RAG context message left out...
 *   3. ...except the CURRENT question's context, placed right before the current (last) user message.
 *
 * Why only the current context: earlier contexts answer earlier questions, and the model's answers
 * to them are already in the history, so re-sending them costs many tokens for nothing; and a
 * context placed at the end (not at the start, where it would change with every question) keeps
 * the prefix system prompt + earlier turns byte-identical from one call to the next, which is what
 * provider prompt caching (OpenAI automatic, Anthropic cache_control, DeepSeek) needs to hit.
 *
 * `currentContext` is the context retrieved for the current question; when omitted (a resume, or
 * a run continued after a restart) the stored context adjacent to the last user message is used.
 * Pairing of tool calls and results is not checked here (see sanitizeToolCallPairing).
 */
export function toLlmMessages(messages: readonly ThreadMessage[], currentContext?: ThreadMessage | null): LlmMessage[] {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  const storedContext = currentContextIndex(messages);
  const context = currentContext ?? (storedContext === -1 ? null : messages[storedContext]);
  const prompt = messages.find((message, index) => isSystemPrompt(message, index));

  const result: LlmMessage[] = [];
  if (prompt) result.push({ role: 'system', content: prompt.content ?? '', cacheBreakpoint: true, ...scopeOf(prompt) });
  if (context && lastUser === -1) result.push({ role: 'system', content: context.content ?? '', ...scopeOf(context) });

  // Events met inside a run of tool results wait for its end: nothing may come between a call and its results.
  let deferred: LlmMessage[] = [];
  let unanswered = new Set<string>();
  let inToolRun = false;
  const place = (message: LlmMessage) => {
    if (message.role !== 'tool') {
      result.push(...deferred);
      deferred = [];
    }
    result.push(message);
    inToolRun = message.role === 'tool' || (message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0);
  };

  messages.forEach((message, index) => {
    if (index === lastUser && context) place({ role: 'system', content: context.content ?? '', ...scopeOf(context) });
    if (message.role === 'event') {
      const event: LlmMessage = {
        role: 'system',
        content: message.event ? renderThreadEvent(message.event) : `[SYSTEM] ${message.content ?? ''}`,
        ...scopeOf(message),
      };
      if (inToolRun) deferred.push(event);
      else result.push(event);
      return;
    }
    const converted = convert(message);
    if (!converted) return;
    if (converted.role === 'assistant') unanswered = new Set(converted.tool_calls?.map((call) => call.id));
    if (converted.role === 'tool') unanswered.delete(converted.tool_call_id);
    place(converted);
  });
  // A batch still waiting for an answer (a resume continues it) must end with its results: its events are left out.
  if (unanswered.size === 0) result.push(...deferred);
  return result;
}

function convert(message: ThreadMessage): LlmMessage | null {
  const scope = scopeOf(message);
  switch (message.role) {
    case 'system':
    case 'event': // placed by toLlmMessages
      return null; // the prompt is placed first, contexts only for the current question
    case 'user':
      return { role: 'user', content: message.content ?? '', ...scope };
    case 'tool': {
      // A result that names no call cannot be paired with one: providers would reject it.
      if (!message.toolCallId) return null;
      const name = message.toolName === undefined ? {} : { name: message.toolName };
      return { role: 'tool', content: message.content ?? '', tool_call_id: message.toolCallId, ...name, ...scope };
    }
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      const text = message.content ?? '';
      // An answer aborted before its first token carries nothing the model could use.
      if (toolCalls.length === 0 && text.length === 0) return null;
      const assistant: LlmAssistantMessage = { role: 'assistant', content: text.length > 0 ? text : null, ...scope };
      if (toolCalls.length > 0)
        assistant.tool_calls = toolCalls.map((call) => ({ ...call, function: { ...call.function } }));
      return assistant;
    }
  }
}

/** The thread a stored message belongs to, carried into what the model is sent. */
function scopeOf(message: ThreadMessage): { threadId?: string } {
  return message.threadId === undefined ? {} : { threadId: message.threadId };
}

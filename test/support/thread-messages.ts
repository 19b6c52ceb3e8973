import type { LlmToolCall } from '../../src/conversation/llm-message';
import type { ThreadMessage } from '../../src/threads/thread.types';

/** Small builders of stored thread messages for history and repository tests. */
let sequence = 0;

function base(role: ThreadMessage['role'], content: string | null): ThreadMessage {
  sequence += 1;
  return { id: `msg_test_${sequence}`, role, content, createdTime: 1_700_000_000_000 + sequence };
}

export function systemPrompt(content = 'You are the graph assistant.'): ThreadMessage {
  return { ...base('system', content), kind: 'system_prompt' };
}

export function ragContext(content: string): ThreadMessage {
  return { ...base('system', content), kind: 'rag_context' };
}

export function userMessage(content: string): ThreadMessage {
  return base('user', content);
}

export function assistantMessage(content: string | null, toolCalls?: LlmToolCall[], aborted?: true): ThreadMessage {
  const message = base('assistant', content);
  if (toolCalls) message.toolCalls = toolCalls;
  if (aborted) message.aborted = true;
  return message;
}

export function toolCall(
  id: string,
  name = 'read_node_detail',
  args: Record<string, unknown> = { nodeKey: 'root' },
): LlmToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** A tool result as the agent commits it: the call's tool name, its success and duration. */
export function toolResult(
  toolCallId: string,
  content: string,
  toolName = 'read_node_detail',
  success = true,
): ThreadMessage {
  return { ...base('tool', content), toolCallId, toolName, success, durationMs: 3 };
}

/** One closed exchange: a question and its answer. */
export function exchangeOf(question: string, answer: string): ThreadMessage[] {
  return [userMessage(question), assistantMessage(answer)];
}

export function eventMessage(
  summary: string,
  type: 'DATA_ADDED' | 'ACTIONS_EXECUTED' = 'ACTIONS_EXECUTED',
): ThreadMessage {
  return { ...base('event', summary), event: { type, summary, results: [{ ok: true, label: summary.toLowerCase() }] } };
}

import type { ThreadMessage } from '../../threads/thread.types';
import { ConversationTurn, TurnToolUse } from './conversation-turn';

/**
 * Cuts a thread's stored messages into turns, in order. Messages before the first user message and
 * system messages are left out. A turn is closed when a later user message exists or when its last
 * message is an assistant message without tool calls (a final answer, or one stopped by the user):
 * a turn waiting for an approval, or whose run is still going or failed midway, may still grow.
 */
export function splitConversationTurns(messages: readonly ThreadMessage[]): ConversationTurn[] {
  const turns: ConversationTurn[] = [];
  let current: ConversationTurn | null = null;
  let last: ThreadMessage | null = null;
  const pending = new Map<string, TurnToolUse>();
  for (const message of messages) {
    if (message.role === 'user') {
      if (current) current.closed = true;
      current = {
        turnId: message.id,
        createdTime: message.createdTime,
        userMessage: message.content ?? '',
        assistantTexts: [],
        tools: [],
        closed: false,
      };
      turns.push(current);
      pending.clear();
      last = message;
      continue;
    }
    if (!current) continue;
    if (message.role === 'assistant') {
      if (message.content) current.assistantTexts.push(message.content);
      for (const call of message.toolCalls ?? []) {
        const use: TurnToolUse = { name: call.function.name, arguments: call.function.arguments, result: null };
        current.tools.push(use);
        pending.set(call.id, use);
      }
      last = message;
    } else if (message.role === 'tool') {
      const use = message.toolCallId ? pending.get(message.toolCallId) : undefined;
      if (use) use.result = message.content ?? '';
      last = message;
    }
  }
  if (current && last?.role === 'assistant' && (last.toolCalls ?? []).length === 0) current.closed = true;
  return turns;
}

import type { LlmAssistantMessage, LlmMessage, LlmToolMessage } from '../../conversation/llm-message';

/** The tool result sent for a call whose result was never stored (a crash mid-round). */
export const MISSING_TOOL_RESULT_CONTENT = JSON.stringify({ status: 'failed', message: 'no result recorded' });

export interface ToolCallPairingResult {
  messages: LlmMessage[];
  /** Tool-call ids that got a synthetic `failed` result. */
  synthesizedResults: string[];
  /** Tool messages dropped because no call right before them asked for them (or a duplicate). */
  droppedResults: number;
}

/**
 * Guarantees the invariant every provider enforces: each assistant tool
 * call is followed by its tool result, and each tool message answers a call of the assistant
 * message right before its run of tool messages.
 *
 *   - a result that exists is kept where it is (results of one assistant message stay in their order);
 *   - a missing result gets a synthetic `{"status":"failed","message":"no result recorded"}` tool
 *     message, after the results that exist, in the order of the calls;
 *   - a tool message without its call (orphan, duplicate, or separated from its call by another
 *     message) is dropped;
 *   - an empty `tool_calls` array is removed (OpenAI rejects it).
 * Nothing else changes: no message is merged, reordered or rewritten. The input is not mutated.
 */
export function sanitizeToolCallPairing(messages: readonly LlmMessage[]): ToolCallPairingResult {
  const result: LlmMessage[] = [];
  const synthesizedResults: string[] = [];
  let droppedResults = 0;

  let index = 0;
  while (index < messages.length) {
    const message = messages[index];
    if (message.role === 'tool') {
      droppedResults += 1;
      index += 1;
      continue;
    }
    if (message.role !== 'assistant' || !message.tool_calls || message.tool_calls.length === 0) {
      result.push(message.role === 'assistant' && message.tool_calls ? withoutToolCalls(message) : message);
      index += 1;
      continue;
    }

    result.push(message);
    const callIds = uniqueIds(message.tool_calls.map((call) => call.id));
    const answered = new Set<string>();
    index += 1;
    while (index < messages.length && messages[index].role === 'tool') {
      const toolMessage = messages[index] as LlmToolMessage;
      if (callIds.includes(toolMessage.tool_call_id) && !answered.has(toolMessage.tool_call_id)) {
        answered.add(toolMessage.tool_call_id);
        result.push(toolMessage);
      } else {
        droppedResults += 1;
      }
      index += 1;
    }
    for (const id of callIds) {
      if (answered.has(id)) continue;
      // The stand-in belongs where its call does: same thread, same tool name.
      const name = message.tool_calls.find((call) => call.id === id)?.function.name;
      result.push({
        role: 'tool',
        tool_call_id: id,
        content: MISSING_TOOL_RESULT_CONTENT,
        ...(name ? { name } : {}),
        ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
      });
      synthesizedResults.push(id);
    }
  }
  return { messages: result, synthesizedResults, droppedResults };
}

function withoutToolCalls(message: LlmAssistantMessage): LlmAssistantMessage {
  const copy: LlmAssistantMessage = { ...message };
  delete copy.tool_calls;
  return copy;
}

function uniqueIds(ids: string[]): string[] {
  return [...new Set(ids)];
}

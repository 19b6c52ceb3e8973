import type { LlmMessage } from '../../conversation/llm-message';
import { maskPersonalData } from '../../observability/personal-data.masker';

/** Messages a call's trace shows: the last ones. */
export const TRACED_MESSAGES = 8;
const TRACED_CONTENT_CHARS = 300;
const TRACED_ARGUMENTS_CHARS = 200;

export interface TracedMessage {
  role: LlmMessage['role'];
  content: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
}

/**
 * The last TRACED_MESSAGES messages of a call as its AI_DEBUG trace logs them: each text cut to a few
 * hundred characters and masked (e-mail addresses, tokens, keys: maskPersonalData), tool calls with
 * their name and masked arguments. Enough to see what the model was answering, never a whole prompt.
 */
export function recentMessagesTrace(messages: readonly LlmMessage[], count = TRACED_MESSAGES): TracedMessage[] {
  return messages.slice(-count).map((message) => {
    const traced: TracedMessage = { role: message.role, content: masked(message.content ?? '', TRACED_CONTENT_CHARS) };
    if (message.role === 'assistant' && message.tool_calls?.length) {
      traced.toolCalls = message.tool_calls.map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: masked(call.function.arguments, TRACED_ARGUMENTS_CHARS),
      }));
    }
    if (message.role === 'tool') traced.toolCallId = message.tool_call_id;
    return traced;
  });
}

function masked(text: string, maxChars: number): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length} chars)` : text;
  return maskPersonalData(cut);
}

import type { Tiktoken } from 'js-tiktoken/lite';
import { LlmMessage } from '../providers/llm-message';

/** Tokens every chat message costs beyond its content (role, separators), as OpenAI documents it. */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the assistant's reply. */
const TOKENS_PER_REPLY = 3;

let sharedEncoder: Tiktoken | null = null;

/** The o200k_base ranks are ~2 MB: loaded on the first count, once per process, shared by every counter. */
function encoder(): Tiktoken {
  if (!sharedEncoder) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Tiktoken: TiktokenClass } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ranks = require('js-tiktoken/ranks/o200k_base') as { default: ConstructorParameters<typeof Tiktoken>[0] };
    sharedEncoder = new TiktokenClass(ranks.default ?? ranks);
  }
  return sharedEncoder;
}

/**
 * Counts tokens with the o200k_base encoding (GPT-4o family). Other vendors tokenise differently,
 * so for them the figure is an estimate: good enough for budgets, context sizes and the usage of
 * a stream aborted before the provider reported it.
 */
export class TokenCounter {
  count(text: string): number {
    if (!text) return 0;
    return encoder().encode(text, [], []).length;
  }

  /** Content, tool calls and tool results of a conversation, plus the per-message overhead. */
  countMessages(messages: LlmMessage[]): number {
    let total = TOKENS_PER_REPLY;
    for (const message of messages) {
      total += TOKENS_PER_MESSAGE + this.count(message.role) + this.count(message.content ?? '');
      if (message.role === 'assistant') {
        for (const call of message.tool_calls ?? []) {
          total += TOKENS_PER_MESSAGE + this.count(call.function.name) + this.count(call.function.arguments);
        }
      }
    }
    return total;
  }
}

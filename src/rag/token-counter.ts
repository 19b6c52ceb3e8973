import type { Tiktoken } from 'js-tiktoken/lite';
import { performance } from 'node:perf_hooks';
import { LlmMessage } from '../conversation/llm-message';

/** Tokens every chat message costs beyond its content (role, separators), as OpenAI documents it. */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the assistant's reply. */
const TOKENS_PER_REPLY = 3;

let sharedEncoder: Tiktoken | null = null;

/** The o200k_base ranks are ~2 MB: loaded on the first count, once per process, shared by every counter. */
function encoder(): Tiktoken {
  if (!sharedEncoder) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start
    const { Tiktoken: TiktokenClass } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start
    const ranks = require('js-tiktoken/ranks/o200k_base') as { default: ConstructorParameters<typeof Tiktoken>[0] };
    sharedEncoder = new TiktokenClass(ranks.default ?? ranks);
  }
  return sharedEncoder;
}

/**
 * Counts tokens with the o200k_base encoding (GPT-4o family). Other vendors tokenise differently,
 * so for them the figure is an estimate: good enough for context sizes and the introspection tools.
 *
 * Loading the encoder blocks the process for 1.5-4 s and counting costs ~1-5 ms per 1,000 characters,
 * so the request path never counts a whole prompt (it uses approximateTokens, providers/token-estimate.ts)
 * and never loads the encoder: the service counts in a worker thread (TokenCountWorker) and never loads it
 * in its own; code on the request path checks `loaded` before counting anything.
 */
export class TokenCounter {
  /** True once the encoder is in memory (shared by every counter of the process). */
  get loaded(): boolean {
    return sharedEncoder !== null;
  }

  /** Loads the encoder now (blocking); the milliseconds it took, 0 when it was already loaded. */
  load(): number {
    if (sharedEncoder) return 0;
    const started = performance.now();
    encoder();
    return performance.now() - started;
  }

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

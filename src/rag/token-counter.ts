import type * as O200kBase from 'gpt-tokenizer/encoding/o200k_base';
import { performance } from 'node:perf_hooks';
import { LlmMessage } from '../conversation/llm-message';

/** Tokens every chat message costs beyond its content (role, separators), as OpenAI documents it. */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the assistant's reply. */
const TOKENS_PER_REPLY = 3;

/** Special-token text (`<|endoftext|>`) is counted as the plain text it is, never refused. */
const PLAIN_TEXT_OPTIONS = { disallowedSpecial: new Set<string>() };

let sharedEncoder: typeof O200kBase | null = null;

/** The o200k_base ranks: loaded on the first count, once per process, shared by every counter. */
function encoder(): typeof O200kBase {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start
  sharedEncoder ??= require('gpt-tokenizer/encoding/o200k_base') as typeof O200kBase;
  return sharedEncoder;
}

/**
 * Counts tokens with the o200k_base encoding (GPT-4o family). Other vendors tokenise differently,
 * so for them the figure is an estimate: good enough for context sizes and the introspection tools.
 *
 * Loading the encoder blocks the process for 0.3-2 s and counting costs ~0.3 ms per 1,000 characters,
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
    return encoder().countTokens(text, PLAIN_TEXT_OPTIONS);
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

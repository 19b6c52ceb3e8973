import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Locale } from '../config/app-config';
import { throwIfAborted } from './llm-abort.error';
import { LlmCallOptions, LlmCompletion, LlmProvider } from './llm-provider';
import { LlmMessage, LlmToolDefinition } from '../conversation/llm-message';
import { LlmStreamChunk } from './llm-stream-chunk';
import { ZERO_LLM_USAGE } from './llm-usage';
import { buildOfflineAnswer } from './offline-answer.builder';

export const OFFLINE_MODEL = 'offline';
/** Give the event loop a turn every few pieces so a long answer never monopolises it. */
const PIECES_PER_TURN = 16;

/** Word-sized pieces whose concatenation is exactly the text. */
function pieces(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/**
 * The provider used when no model is configured: the service still answers, honestly — an
 * extractive answer built from options.retrievedContext that says first that no LLM is
 * configured. Streams like the others (small token pieces, zero usage, done); never calls tools.
 */
export class OfflineLlmProvider implements LlmProvider {
  readonly providerName = 'offline';
  readonly model = OFFLINE_MODEL;
  readonly offline = true;

  constructor(private readonly options: { locale?: Locale } = {}) {}

  async complete(
    _messages: LlmMessage[],
    _tools?: LlmToolDefinition[],
    options: LlmCallOptions = {},
  ): Promise<LlmCompletion> {
    throwIfAborted(options.signal);
    const text = this.answer(options);
    return {
      message: { role: 'assistant', content: text },
      usage: { ...ZERO_LLM_USAGE },
      model: OFFLINE_MODEL,
      finishReason: 'stop',
    };
  }

  async *stream(
    _messages: LlmMessage[],
    _tools?: LlmToolDefinition[],
    options: LlmCallOptions = {},
  ): AsyncGenerator<LlmStreamChunk> {
    const signal = options.signal;
    throwIfAborted(signal);
    const all = pieces(this.answer(options));
    for (let index = 0; index < all.length; index++) {
      if (index > 0 && index % PIECES_PER_TURN === 0) await nextTurn();
      throwIfAborted(signal);
      yield { type: 'token', token: all[index] };
    }
    yield { type: 'usage', usage: { ...ZERO_LLM_USAGE } };
    yield { type: 'done', finishReason: 'stop' };
  }

  private answer(options: LlmCallOptions): string {
    return buildOfflineAnswer(options.retrievedContext, this.options.locale ?? 'en').trimEnd();
  }
}

import type { LlmMessage, LlmToolDefinition } from '../conversation/llm-message';

/** Role, separators and name framing of one chat message, as OpenAI documents it (rounded up). */
const TOKENS_PER_MESSAGE = 4;

/** Characters per token of the cheap estimate: real o200k counts are ~4 for English and code, so 3 errs high. */
export const CHARS_PER_TOKEN_ESTIMATE = 3;

export type CountTokens = (text: string) => number;

/**
 * THE cheap token estimate (history pruning, AI_MAX_TOKENS_PER_CALL, usage of a stream aborted
 * before the provider reported it): ~3 characters per token, on the safe side for code and
 * non-English text. A tokenizer costs milliseconds per few KB of text and must never run over a
 * whole prompt on the request path.
 */
export function approximateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN_ESTIMATE);
}

/** Token estimate of messages: content, tool-call names and arguments, plus the per-message framing. */
export function estimateTokens(messages: readonly LlmMessage[], countTokens: CountTokens = approximateTokens): number {
  let total = 0;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countTokens(message.content ?? '');
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        total += TOKENS_PER_MESSAGE + countTokens(call.function.name) + countTokens(call.function.arguments);
      }
    }
  }
  return total;
}

const toolEstimates = new WeakMap<readonly LlmToolDefinition[], number>();

/** Estimate of the tool definitions sent with a call, computed once per definitions array (every call of a run sends the same one). */
export function estimateToolTokens(tools: readonly LlmToolDefinition[] | undefined): number {
  if (!tools || tools.length === 0) return 0;
  let estimate = toolEstimates.get(tools);
  if (estimate === undefined) {
    estimate = approximateTokens(JSON.stringify(tools));
    toolEstimates.set(tools, estimate);
  }
  return estimate;
}

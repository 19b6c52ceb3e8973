import { APIUserAbortError as AnthropicUserAbortError } from '@anthropic-ai/sdk';
import { APIUserAbortError as OpenAiUserAbortError } from 'openai';

/**
 * Thrown by LlmProvider.stream()/complete() when the caller's AbortSignal fired: the upstream
 * request was cancelled. Not a provider failure, so it carries no protocol error code; callers end
 * the generation as aborted (ai:complete { aborted: true }).
 */
export class LlmAbortError extends Error {
  constructor(message = 'The LLM request was aborted', options?: { cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'AbortError';
  }
}

/**
 * True for every shape an abort takes on its way up: our LlmAbortError, a DOM/undici AbortError,
 * and the SDKs' APIUserAbortError (openai and @anthropic-ai/sdk).
 */
export function isAbortError(error: unknown): boolean {
  if (
    error instanceof LlmAbortError ||
    error instanceof OpenAiUserAbortError ||
    error instanceof AnthropicUserAbortError
  ) {
    return true;
  }
  if (typeof error !== 'object' || error === null) return false;
  const name = (error as { name?: unknown }).name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}

/** Throws an LlmAbortError when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new LlmAbortError(undefined, { cause: signal.reason });
}

/** What a provider call rethrows: an LlmAbortError when the caller aborted or `error` is an abort, else `error` itself. */
export function asLlmAbortError(error: unknown, signal: AbortSignal | undefined): unknown {
  return signal?.aborted || isAbortError(error) ? new LlmAbortError(undefined, { cause: error }) : error;
}

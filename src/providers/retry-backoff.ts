import { LlmAbortError } from './llm-abort.error';

export interface RetryBackoffOptions {
  /** First delay before jitter (ms). */
  baseDelayMs: number;
  /** Cap of the exponential delay (ms). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error goes back to the caller (still retryable). */
  maxRetryAfterMs: number;
  /** [0, 1) source for jitter; injectable for tests. */
  random: () => number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoffOptions = {
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 10_000,
  random: Math.random,
};

/**
 * Delay before retry number `attempt` (0 = first retry): the upstream's Retry-After when it gave
 * one (null when it exceeds maxRetryAfterMs: not worth holding the request), else exponential
 * backoff with "equal jitter" (half fixed, half random) so clients that failed together spread out.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | null,
  options: RetryBackoffOptions = DEFAULT_RETRY_BACKOFF,
): number | null {
  if (retryAfterMs !== null) return retryAfterMs <= options.maxRetryAfterMs ? retryAfterMs : null;
  const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.round(exponential / 2 + options.random() * (exponential / 2));
}

/** Waits `ms`, or rejects with LlmAbortError as soon as the signal fires (no timer left behind). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new LlmAbortError(undefined, { cause: signal.reason }));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmAbortError(undefined, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Which endpoint a call went to: the registry provider name and the model. */
export interface LlmCallLabels {
  provider: string;
  model: string;
}

/** ok: answered in full; error: failed for good (after any retries); aborted: stopped by the caller. */
export type LlmCallOutcome = 'ok' | 'error' | 'aborted';

/**
 * What the retry policy (RetryingLlmProvider) reports about each upstream call, for metrics;
 * ProvidersModule binds it to LlmMetrics. Times are measured from the start of the call, so
 * retries and their backoff waits are included: it is the latency the user sees.
 */
export interface LlmCallObserver {
  /** The first chunk of a streamed call arrived. */
  firstChunk(call: LlmCallLabels, seconds: number): void;
  /** The call is over (reported once). */
  ended(call: LlmCallLabels, outcome: LlmCallOutcome, seconds: number): void;
  /** An upstream failure with its protocol error code; `retried` when another attempt follows. */
  upstreamError(call: LlmCallLabels, code: string, retried: boolean): void;
}

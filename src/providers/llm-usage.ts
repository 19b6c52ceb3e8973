/** Tokens of one upstream call. `cachedTokens` is the part of promptTokens served from the provider's cache. */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
}

/** A call that used nothing (the offline provider, a request the upstream refused outright). */
export const ZERO_LLM_USAGE: Readonly<LlmUsage> = Object.freeze({
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  totalTokens: 0,
});

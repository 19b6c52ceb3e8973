/** Tokens of one upstream call. `cachedTokens` is the part of promptTokens served from the provider's cache. */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
}

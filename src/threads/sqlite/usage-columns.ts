import type { UsageTotals } from '../thread.types';

/** Usage as the named parameters of the embedded store's usage columns (threads, workspace totals, automation runs). */
export function usageColumns(usage: UsageTotals): Record<string, number> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    cached_tokens: usage.cachedTokens,
    total_tokens: usage.totalTokens,
    cost_usd: usage.costUsd,
    llm_calls: usage.llmCalls,
  };
}

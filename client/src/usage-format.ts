import type { UsageReport } from './protocol';

/** "1,234 tokens (1,100 in, 134 out, 800 cached) · $0.0012 · 2 calls", with "≈" when estimated. */
export function formatUsage(usage: UsageReport, locale = 'en'): string {
  const n = (value: number) => value.toLocaleString(locale);
  const cached = usage.cachedTokens > 0 ? `, ${n(usage.cachedTokens)} cached` : '';
  const approx = usage.estimated ? '≈' : '';
  const cost = usage.costUsd > 0 && usage.costUsd < 0.0001 ? '<$0.0001' : `$${usage.costUsd.toFixed(4)}`;
  const calls = `${usage.llmCalls} call${usage.llmCalls === 1 ? '' : 's'}`;
  return `${approx}${n(usage.totalTokens)} tokens (${n(usage.promptTokens)} in, ${n(usage.completionTokens)} out${cached}) · ${cost} · ${calls}`;
}

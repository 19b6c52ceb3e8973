import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../test/support/prometheus-samples';
import { TokenUsageMetrics } from './token-usage.metrics';

describe(TokenUsageMetrics.name, () => {
  it('adds tokens by type and cost by provider, model and kind', async () => {
    const registry = new Registry();
    const metrics = new TokenUsageMetrics(registry);
    const chat = { provider: 'openai', model: 'gpt-4o', kind: 'chat' as const };
    metrics.record({ ...chat, promptTokens: 1000, completionTokens: 50, cachedTokens: 400, costUsd: 0.002 });
    metrics.record({ ...chat, promptTokens: 500, completionTokens: 10, cachedTokens: 0, costUsd: 0.001 });
    metrics.record({
      provider: 'openai',
      model: 'text-embedding-3-small',
      kind: 'embedding',
      promptTokens: 80,
      completionTokens: 0,
      cachedTokens: 0,
      costUsd: 0.0000016,
    });
    const samples = new PrometheusSamples(await registry.metrics());
    expect(samples.sum('graph_ai_llm_tokens_total', { ...chat, type: 'prompt' })).toBe(1500);
    expect(samples.sum('graph_ai_llm_tokens_total', { ...chat, type: 'completion' })).toBe(60);
    expect(samples.sum('graph_ai_llm_tokens_total', { ...chat, type: 'cached' })).toBe(400);
    expect(samples.sum('graph_ai_llm_cost_usd_total', chat)).toBeCloseTo(0.003);
    expect(samples.sum('graph_ai_llm_tokens_total', { kind: 'embedding', type: 'prompt' })).toBe(80);
    expect(samples.sum('graph_ai_llm_cost_usd_total', { kind: 'embedding' })).toBeCloseTo(0.0000016);
  });

  it('never throws on a negative or non-finite figure (counted as 0)', async () => {
    const registry = new Registry();
    const metrics = new TokenUsageMetrics(registry);
    expect(() =>
      metrics.record({
        provider: 'p',
        model: 'm',
        kind: 'chat',
        promptTokens: -1,
        completionTokens: Number.NaN,
        cachedTokens: 0,
        costUsd: Infinity,
      }),
    ).not.toThrow();
    const samples = new PrometheusSamples(await registry.metrics());
    expect(samples.sum('graph_ai_llm_tokens_total')).toBe(0);
    expect(samples.sum('graph_ai_llm_cost_usd_total')).toBe(0);
  });
});

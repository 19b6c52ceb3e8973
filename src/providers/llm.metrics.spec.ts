import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../test/support/prometheus-samples';
import { LlmMetrics } from './llm.metrics';

describe(LlmMetrics.name, () => {
  it('observes time to first token, total time by outcome, and upstream errors by code', async () => {
    const registry = new Registry();
    const metrics = new LlmMetrics(registry);
    const call = { provider: 'deepseek', model: 'deepseek-chat' };
    metrics.firstChunk(call, 0.4);
    metrics.ended(call, 'ok', 1.5);
    metrics.ended(call, 'error', 30);
    metrics.upstreamError(call, 'rate_limit', true);
    metrics.upstreamError(call, 'rate_limit', false);
    metrics.upstreamError(call, 'rate_limit', true);
    const samples = new PrometheusSamples(await registry.metrics());
    expect(samples.typeOf('graph_ai_llm_time_to_first_token_seconds')).toBe('histogram');
    expect(samples.sum('graph_ai_llm_time_to_first_token_seconds_bucket', { ...call, le: '0.25' })).toBe(0);
    expect(samples.sum('graph_ai_llm_time_to_first_token_seconds_bucket', { ...call, le: '0.5' })).toBe(1);
    expect(samples.sum('graph_ai_llm_request_duration_seconds_count', { ...call, outcome: 'ok' })).toBe(1);
    expect(samples.sum('graph_ai_llm_request_duration_seconds_sum', { ...call, outcome: 'error' })).toBe(30);
    expect(samples.sum('graph_ai_llm_upstream_errors_total', { ...call, code: 'rate_limit', retried: 'true' })).toBe(2);
    expect(samples.sum('graph_ai_llm_upstream_errors_total', { ...call, code: 'rate_limit', retried: 'false' })).toBe(
      1,
    );
  });
});

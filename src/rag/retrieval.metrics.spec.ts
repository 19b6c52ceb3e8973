import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../test/support/prometheus-samples';
import { RetrievalMetrics } from './retrieval.metrics';

describe(RetrievalMetrics.name, () => {
  it('observes latency by search mode and cache result, and counts hits and misses', async () => {
    const registry = new Registry();
    const metrics = new RetrievalMetrics(registry);
    metrics.retrieved({ searchMode: 'hybrid', cacheHit: false, durationMs: 12 });
    metrics.retrieved({ searchMode: 'hybrid', cacheHit: true, durationMs: 0.05 });
    metrics.retrieved({ searchMode: 'bm25', cacheHit: true, durationMs: 0.04 });
    const samples = new PrometheusSamples(await registry.metrics());
    expect(samples.sum('graph_ai_retrieval_cache_hits_total')).toBe(2);
    expect(samples.sum('graph_ai_retrieval_cache_misses_total')).toBe(1);
    expect(
      samples.sum('graph_ai_retrieval_duration_seconds_sum', { search_mode: 'hybrid', cache: 'miss' }),
    ).toBeCloseTo(0.012);
    expect(
      samples.sum('graph_ai_retrieval_duration_seconds_bucket', { search_mode: 'hybrid', cache: 'miss', le: '0.01' }),
    ).toBe(0);
    expect(
      samples.sum('graph_ai_retrieval_duration_seconds_bucket', { search_mode: 'hybrid', cache: 'miss', le: '0.025' }),
    ).toBe(1);
    expect(samples.sum('graph_ai_retrieval_duration_seconds_count', { cache: 'hit' })).toBe(2);
  });
});

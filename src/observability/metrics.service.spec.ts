import { register as globalRegistry } from 'prom-client';
import { PrometheusSamples } from '../../test/support/prometheus-samples';
import { MetricsService } from './metrics.service';

describe(MetricsService.name, () => {
  it('exposes the process metrics (prefixed) and its own, in the Prometheus 0.0.4 text format', async () => {
    const metrics = new MetricsService();
    metrics.http.record({ method: 'GET', route: '/health', statusCode: 200, seconds: 0.002 });
    const samples = new PrometheusSamples(await metrics.scrape());
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(samples.typeOf('graph_ai_process_cpu_seconds_total')).toBe('counter');
    expect(samples.typeOf('graph_ai_nodejs_heap_size_used_bytes')).toBe('gauge');
    expect(samples.sum('graph_ai_http_requests_total', { route: '/health', status_code: '200' })).toBe(1);
    expect(samples.samples.every((sample) => sample.name.startsWith('graph_ai_'))).toBe(true);
  });

  it("gives each instance its own counters, outside prom-client's global registry", async () => {
    const first = new MetricsService();
    const second = new MetricsService();
    first.http.record({ method: 'POST', route: '/api/ai/chat', statusCode: 200, seconds: 0.5 });
    const fromFirst = new PrometheusSamples(await first.scrape());
    const fromSecond = new PrometheusSamples(await second.scrape());
    expect(fromFirst.sum('graph_ai_http_requests_total')).toBe(1);
    expect(fromSecond.sum('graph_ai_http_requests_total')).toBe(0);
    expect(globalRegistry.getSingleMetric('graph_ai_http_requests_total')).toBeUndefined();
  });
});

import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../../test/support/prometheus-samples';
import { HttpMetrics, UNMATCHED_ROUTE } from './http.metrics';

describe(HttpMetrics.name, () => {
  let registry: Registry;
  let metrics: HttpMetrics;
  const scrape = async () => new PrometheusSamples(await registry.metrics());

  beforeEach(() => {
    registry = new Registry();
    metrics = new HttpMetrics(registry);
  });

  it('counts requests by method, route template, status code and class, with their duration', async () => {
    metrics.record({ method: 'GET', route: '/api/ai/thread/:threadId', statusCode: 200, seconds: 0.02 });
    metrics.record({ method: 'GET', route: '/api/ai/thread/:threadId', statusCode: 404, seconds: 0.003 });
    metrics.record({ method: 'GET', route: '/api/ai/thread/:threadId', statusCode: 404, seconds: 0.004 });
    const samples = await scrape();
    const route = { method: 'GET', route: '/api/ai/thread/:threadId' };
    expect(samples.sum('graph_ai_http_requests_total', { ...route, status_code: '404', status_class: '4xx' })).toBe(2);
    expect(samples.sum('graph_ai_http_requests_total', { ...route, status_code: '200', status_class: '2xx' })).toBe(1);
    expect(samples.sum('graph_ai_http_request_duration_seconds_count', { ...route, status_class: '4xx' })).toBe(2);
    expect(samples.sum('graph_ai_http_request_duration_seconds_sum', { ...route, status_class: '4xx' })).toBeCloseTo(
      0.007,
    );
    expect(
      samples.sum('graph_ai_http_request_duration_seconds_bucket', { ...route, status_class: '2xx', le: '0.01' }),
    ).toBe(0);
    expect(
      samples.sum('graph_ai_http_request_duration_seconds_bucket', { ...route, status_class: '2xx', le: '0.025' }),
    ).toBe(1);
  });

  it('keeps labels bounded: no route becomes "unmatched", unknown methods become OTHER', async () => {
    metrics.record({ method: 'GET', route: null, statusCode: 404, seconds: 0.001 });
    metrics.record({ method: 'BREW', route: null, statusCode: 404, seconds: 0.001 });
    const samples = await scrape();
    expect(samples.labelValues('graph_ai_http_requests_total', 'route')).toEqual([UNMATCHED_ROUTE]);
    expect(samples.labelValues('graph_ai_http_requests_total', 'method')).toEqual(['GET', 'OTHER']);
  });
});

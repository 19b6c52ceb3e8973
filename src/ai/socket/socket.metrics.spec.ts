import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../../test/support/prometheus-samples';
import { SocketMetrics } from './socket.metrics';

describe(SocketMetrics.name, () => {
  it('counts socket requests by event and outcome', async () => {
    const registry = new Registry();
    const metrics = new SocketMetrics(registry);
    metrics.event('ai:chat', 'ok');
    metrics.event('ai:chat', 'ok');
    metrics.event('ai:chat', 'thread_busy');
    metrics.event('ai:interrupt', 'ignored');
    const samples = new PrometheusSamples(await registry.metrics());
    expect(samples.typeOf('graph_ai_socket_events_total')).toBe('counter');
    expect(samples.sum('graph_ai_socket_events_total', { event: 'ai:chat', outcome: 'ok' })).toBe(2);
    expect(samples.sum('graph_ai_socket_events_total', { event: 'ai:chat', outcome: 'thread_busy' })).toBe(1);
    expect(samples.sum('graph_ai_socket_events_total', { event: 'ai:interrupt', outcome: 'ignored' })).toBe(1);
    expect(samples.find('graph_ai_socket_events_total')).toHaveLength(3);
  });
});

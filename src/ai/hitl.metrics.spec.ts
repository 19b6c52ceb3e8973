import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../test/support/prometheus-samples';
import { HitlMetrics } from './hitl.metrics';

describe(HitlMetrics.name, () => {
  it('counts interrupts by outcome', async () => {
    const registry = new Registry();
    const metrics = new HitlMetrics(registry);
    metrics.interrupt('proposed');
    metrics.interrupt('proposed');
    metrics.interrupt('rejected');
    metrics.interrupt('superseded');
    const samples = new PrometheusSamples(await registry.metrics());
    expect(samples.sum('graph_ai_hitl_interrupts_total', { outcome: 'proposed' })).toBe(2);
    expect(samples.sum('graph_ai_hitl_interrupts_total', { outcome: 'rejected' })).toBe(1);
    expect(samples.sum('graph_ai_hitl_interrupts_total', { outcome: 'superseded' })).toBe(1);
    expect(samples.sum('graph_ai_hitl_interrupts_total', { outcome: 'approved' })).toBe(0);
  });
});

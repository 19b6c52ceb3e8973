import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../../test/support/prometheus-samples';
import { ActiveGenerationsMetrics } from './active-generations.metrics';

describe(ActiveGenerationsMetrics.name, () => {
  it('reads the tracked count at each scrape (0 before anything is tracked)', async () => {
    const registry = new Registry();
    const metrics = new ActiveGenerationsMetrics(registry);
    const value = async () => new PrometheusSamples(await registry.metrics()).sum('graph_ai_active_generations');
    expect(await value()).toBe(0);
    let running = 3;
    metrics.track(() => running);
    expect(await value()).toBe(3);
    running = 1;
    expect(await value()).toBe(1);
  });
});

import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../../test/support/prometheus-samples';
import { RunSchedulingMetrics } from './run-scheduling.metrics';

describe(RunSchedulingMetrics.name, () => {
  it('reads the tracked queue, held and put-off streams at each scrape (0 before anything is tracked)', async () => {
    const registry = new Registry();
    const metrics = new RunSchedulingMetrics(registry);
    const values = async () => {
      const samples = new PrometheusSamples(await registry.metrics());
      return [
        samples.sum('graph_ai_runs_waiting_for_setup'),
        samples.sum('graph_ai_streams_giving_way'),
        samples.sum('graph_ai_streams_put_off'),
      ];
    };
    expect(await values()).toEqual([0, 0, 0]);
    const state = { waitingForSetup: 300, streamsGivingWay: 512, streamsPutOff: 40 };
    metrics.track(() => state);
    expect(await values()).toEqual([300, 512, 40]);
    state.waitingForSetup = 0;
    state.streamsGivingWay = 0;
    state.streamsPutOff = 0;
    expect(await values()).toEqual([0, 0, 0]);
  });
});

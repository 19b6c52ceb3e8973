import { Gauge, Registry } from 'prom-client';

/** What the run scheduling of this instance holds now (ThreadRunSkeleton.schedulingState). */
export interface RunSchedulingState {
  /** Runs waiting for a setup slot (RunSetupGate). */
  waitingForSetup: number;
  /** Running streams giving way to them (SetupFirstScheduling). */
  streamsGivingWay: number;
}

/**
 * The run scheduling's queue and the streams giving way to it, read at each scrape (docs/agent.md,
 * "A burst of new conversations"): a burst shows as a queue, and as streams held while it lasts.
 */
export class RunSchedulingMetrics {
  private source: () => RunSchedulingState = () => ({ waitingForSetup: 0, streamsGivingWay: 0 });

  constructor(registry: Registry) {
    const read = () => this.source();
    registry.registerMetric(
      new Gauge({
        name: 'graph_ai_runs_waiting_for_setup',
        help: 'Runs (chat, resume, automation) waiting for a setup slot on this instance.',
        registers: [],
        collect() {
          this.set(read().waitingForSetup);
        },
      }),
    );
    registry.registerMetric(
      new Gauge({
        name: 'graph_ai_streams_giving_way',
        help: 'Running streams holding their next chunk while new conversations are set up (AI_SETUP_FIRST_*).',
        registers: [],
        collect() {
          this.set(read().streamsGivingWay);
        },
      }),
    );
  }

  /** Where the state comes from (replaces the previous source). */
  track(source: () => RunSchedulingState): void {
    this.source = source;
  }
}

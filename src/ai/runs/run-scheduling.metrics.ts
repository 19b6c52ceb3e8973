import { Gauge, Registry } from 'prom-client';

/** What the run scheduling of this instance holds now (ThreadRunner.schedulingState). */
export interface RunSchedulingState {
  /** Runs waiting for a setup slot (RunSetupGate). */
  waitingForSetup: number;
  /** Running streams giving way to them (SetupFirstScheduling). */
  streamsGivingWay: number;
  /** Running streams put off to a later turn of the event loop (TurnBudget). */
  streamsPutOff: number;
}

/**
 * The run scheduling's queue and the streams giving way to it, read at each scrape: a burst shows as a queue, and as streams held while it lasts; and
 * the streams put off to a later turn.
 */
export class RunSchedulingMetrics {
  private source: () => RunSchedulingState = () => ({ waitingForSetup: 0, streamsGivingWay: 0, streamsPutOff: 0 });

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
    registry.registerMetric(
      new Gauge({
        name: 'graph_ai_streams_put_off',
        help: "Running streams waiting for a later turn of the event loop, this one's share being spent (AI_STREAM_TURN_BUDGET_MS).",
        registers: [],
        collect() {
          this.set(read().streamsPutOff);
        },
      }),
    );
  }

  /** Where the state comes from (replaces the previous source). */
  track(source: () => RunSchedulingState): void {
    this.source = source;
  }
}

import { Gauge, Registry } from 'prom-client';

/**
 * Generations running on this instance (chat and resume runs, socket and REST), read from whoever
 * tracks them (the run registry) at each scrape rather than counted up and down, so it cannot drift.
 */
export class ActiveGenerationsMetrics {
  private source: () => number = () => 0;

  constructor(registry: Registry) {
    const read = () => this.source();
    registry.registerMetric(
      new Gauge({
        name: 'graph_ai_active_generations',
        help: 'Generations (chat or resume runs, over Socket.IO or REST) running on this instance.',
        registers: [],
        collect() {
          this.set(read());
        },
      }),
    );
  }

  /** Where the count comes from (replaces the previous source). */
  track(source: () => number): void {
    this.source = source;
  }
}

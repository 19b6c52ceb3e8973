import { Counter, Registry } from 'prom-client';

/**
 * What became of a human-in-the-loop interrupt: proposed (the run stopped for a human), then
 * approved, rejected, failed (approved but could not be applied), or superseded (a new message
 * came first); answered / declined for questions to the user.
 */
export type HitlOutcome = 'proposed' | 'approved' | 'rejected' | 'failed' | 'superseded' | 'answered' | 'declined';

/** Human-in-the-loop interrupts by outcome. */
export class HitlMetrics {
  private readonly interrupts: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.interrupts = new Counter({
      name: 'graph_ai_hitl_interrupts_total',
      help: 'Human-in-the-loop interrupts by outcome (proposed, approved, rejected, failed, superseded, answered, declined).',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  interrupt(outcome: HitlOutcome): void {
    this.interrupts.inc({ outcome });
  }
}

import { Counter, Registry } from 'prom-client';
import type { HitlObserver, HitlOutcome } from './hitl.observer';

/** Human-in-the-loop interrupts by outcome. */
export class HitlMetrics implements HitlObserver {
  private readonly interrupts: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.interrupts = new Counter({
      name: 'graph_ai_hitl_interrupts_total',
      help: 'Human-in-the-loop interrupts by outcome (proposed, approved, rejected, failed, stale, superseded, answered, declined).',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  interrupt(outcome: HitlOutcome): void {
    this.interrupts.inc({ outcome });
  }
}

import type { AutomationClock } from '../../src/automations/automation-clock';

/** A clock a test sets and moves (AutomationsModule's AUTOMATION_CLOCK): time passes only when told. */
export class ManualClock implements AutomationClock {
  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  set(time: number): void {
    this.time = time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}

/**
 * The time automations live by: which slots are due, when runs start and end, what {{now}} says.
 * Injected (AUTOMATION_CLOCK) so tests move it; the service uses the system clock.
 */
export interface AutomationClock {
  now(): number;
}

export const AUTOMATION_CLOCK = Symbol('AUTOMATION_CLOCK');

export const SYSTEM_CLOCK: AutomationClock = { now: () => Date.now() };

/** Injection token of the HitlObserver the agent-run executor reports interrupts to (optional: none in hand-built services). */
export const HITL_OBSERVER = Symbol('HITL_OBSERVER');

/** Injection token of the HitlObserver ChatService reports interrupts to (optional: none in hand-built services). */
export const HITL_OBSERVER = Symbol('HITL_OBSERVER');

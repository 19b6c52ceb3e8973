import type { Principal } from '../auth/principal';

/**
 * Who a run acts as, computed once when the run starts and stored with its pending
 * interrupts: the person chatting, or an automation's run, which acts on behalf of its creator with the lowest of the
 * creator's current role and the role of whoever last changed its prompt or schedule. Recorded with every operation.
 */
export interface ActingIdentity {
  /** Whose thread and rights: the person, or the automation's creator with the run's role. */
  principal: Principal;
  automation?: {
    automationId: string;
    /** The creator, on whose behalf it acts. */
    onBehalfOf: string;
  };
}

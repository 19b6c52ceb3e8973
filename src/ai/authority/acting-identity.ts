export type { ActingIdentity } from '../../policy/acting-identity';
import type { ActingIdentity } from '../../policy/acting-identity';
import type { OperationActor, OperationVia } from '../../changes/operation';

/** The actor recorded with an operation the run applies `via` a rule (autonomous, ask_first). */
export function actorOf(
  acting: ActingIdentity,
  via: Exclude<OperationVia, 'approval' | 'undo' | 'automation'>,
): OperationActor {
  const { principal, automation } = acting;
  if (!automation) return { userId: principal.userId, role: principal.role, via };
  return {
    userId: principal.userId,
    role: principal.role,
    via: via === 'autonomous' ? 'automation' : via,
    automationId: automation.automationId,
    onBehalfOf: automation.onBehalfOf,
  };
}

import type { ActionConversionResult } from '../../conversation/action-conversion-result';
import type { ChangedDocument, ProposalPreview } from '../../conversation/proposal-preview';
import type { ProposedAction } from '../../conversation/proposed-action';

/**
 * A proposal that passed the checks (ProposalReferenceValidator), with the change set it becomes (ActionConverter)
 * and what it was made against: what an approval interrupt carries, and what an action applied without a human
 * carries. `operationId` once it was decided (`ai:apply` and `AgentResult.actions[]` carry it).
 */
export interface CheckedAction {
  toolCallId: string;
  proposedAction: ProposedAction;
  preview: ProposalPreview;
  operationId?: string;
}

/**
 * What became of an action: applied here, handed to the client to apply, stale (what it was made against changed:
 * nothing applied), or refused by the graph (nothing applied, and why).
 */
export type ActionApplication =
  | { status: 'applied'; appliedBy: 'server' | 'client'; operationId: string }
  | { status: 'stale'; changed: ChangedDocument[]; operationId: string }
  | { status: 'failed'; reason: string; operationId: string };

/**
 * What `ai:apply` carries (HITL_APPLY=client): a change for the editor to apply,
 * under its operation id, on which the editor de-duplicates.
 */
export interface ApplyRequest {
  operationId: string;
  preview: ActionConversionResult;
  /** A proposal applied without a human: its call and action. */
  toolCallId?: string;
  proposedAction?: ProposedAction;
  /** A revert: the operations it reverts. */
  reverts?: string[];
}

import type { Role } from '../auth/principal';
import type { ActionConversionResult } from '../conversation/action-conversion-result';
import type { ChangedDocument, DocumentFingerprint } from '../conversation/proposal-preview';

/** How a change came to be applied (`actor.via`). */
export type OperationVia = 'approval' | 'autonomous' | 'ask_first' | 'automation' | 'undo';

/**
 * Who applied a change: the person (an approver, the one chatting), or an automation's run acting with `role` on
 * behalf of `onBehalfOf` (its creator).
 */
export interface OperationActor {
  userId: string;
  role: Role;
  via: OperationVia;
  automationId?: string;
  onBehalfOf?: string;
}

/**
 * What became of an operation's decision, recorded once (the first decision wins; a retry answers it):
 * `applied` here, `sent` to the client to apply (HITL_APPLY=client), `stale` (its basis changed: nothing applied),
 * `failed` (the store refused it: nothing applied), `rejected` (a human declined it: nothing applied).
 */
export type OperationStatus = 'applied' | 'sent' | 'stale' | 'failed' | 'rejected';

/** A node or edge an operation wrote: its fingerprint before and after (null: absent). */
export interface TouchedDocument {
  kind: 'node' | 'edge';
  key: string;
  before: DocumentFingerprint;
  after: DocumentFingerprint;
}

/** Why a part of a revert was not reverted (`refused`). */
export interface RefusedRevert {
  kind: 'node' | 'edge';
  key: string;
  /**
   * `changed_since`: someone changed it after the operation (a human's later edit is never overwritten);
   * `depends_on_refused`: its revert needs a part that was refused (an edge whose node stays).
   */
  reason: 'changed_since' | 'depends_on_refused';
  /** The operation whose part it is. */
  operationId: string;
}

/** What the first attempt answered, for a retry to answer the same. */
export interface OperationOutcome {
  /** failed: the store's reason. */
  reason?: string;
  /** stale: what changed since the proposal. */
  changed?: ChangedDocument[];
  /** A partly approved batch: the items applied and declined. */
  appliedItems?: string[];
  declinedItems?: string[];
  /** A revert: the operations it reverted, and the parts it refused. */
  reverted?: string[];
  refused?: RefusedRevert[];
}

/**
 * One decided change of a graph: the change log's record, keyed by `operationId`
 * (`<threadId>:<toolCallId>` for a proposal's decision, `<threadId>:undo:<id>` for a revert).
 */
export interface OperationRecord {
  operationId: string;
  workspace: string;
  graphKey: string;
  threadId: string;
  /** The tool call it decides (absent for a revert). */
  toolCallId?: string;
  /** The thread message it belongs to, when known at decision time (a revert's ACTIONS_REVERTED event). */
  messageId?: string;
  status: OperationStatus;
  actor: OperationActor;
  /** When it was decided (applied, sent, or found stale / failed / rejected). */
  appliedTime: number;
  /** What was applied or sent (empty when nothing was). */
  changes: ActionConversionResult;
  /** What puts the touched nodes and edges back as they were before it, computed when it was applied. */
  inverse: ActionConversionResult;
  touched: TouchedDocument[];
  /** A revert: the operations it reverted. */
  reverts?: string[];
  /** The revert that reverted it. */
  revertedBy?: string;
  outcome: OperationOutcome;
}

/** An empty change set on a sheet (nothing applied). */
export function emptyChanges(sheetId: string): ActionConversionResult {
  return {
    instructions: [],
    nodesToCreate: [],
    edgesToCreate: [],
    nodeKeysToDelete: [],
    edgeKeysToDelete: [],
    sheetId,
  };
}

import { AppError } from '../../errors/app-error';
import { ActionConversionResult } from '../../conversation/action-conversion-result';
import { ProposedAction } from '../../conversation/proposed-action';
import { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import { Logger } from '../../observability/logger';

/**
 * A proposal that passed the checks (ProposalReferenceValidator), with the change set it becomes
 * (ActionConverter): what an approval interrupt carries, and what an action applied without a human
 * would carry.
 */
export interface CheckedAction {
  toolCallId: string;
  proposedAction: ProposedAction;
  preview: ActionConversionResult;
}

/** What became of an action: applied here, handed to the client to apply, or not applicable any more (and why). */
export type ActionApplication =
  { status: 'applied'; appliedBy: 'server' | 'client' } | { status: 'failed'; reason: string };

export interface ActionApplierOptions {
  /** HITL_APPLY: `server` applies the change set to the graph; `client` leaves it to the caller's editor (Nodius's sync pipeline). */
  mode: 'server' | 'client';
  /** Told about each graph an action changes (or is about to change, through the client): the retrieval cache forgets it. */
  graphChanged(graphKey: string, workspace: string): void;
}

/** Store refusals that mean the graph moved on since the proposal (node gone, key taken, edge dangling): the model is told why. */
const OUTDATED_PROPOSAL_CODES: ReadonlySet<string> = new Set(['not_found', 'conflict', 'bad_request']);

/**
 * THE place that applies an action to a graph, whatever decided it (a human approving a proposal,
 * or a rule that needs no human). With HITL_APPLY=server the preview is applied
 * in one transaction; with `client` nothing changes here and the caller applies it. A refusal of the
 * store because the graph changed is an outcome (`failed`, nothing changed), not an error; any other
 * failure (store down...) is thrown.
 */
export class ActionApplier {
  private readonly logger = new Logger('agent');

  constructor(private readonly options: ActionApplierOptions) {}

  async apply(action: CheckedAction, dataSource: MutableGraphDataSource, graphKey: string): Promise<ActionApplication> {
    let application: ActionApplication;
    if (this.options.mode === 'client') {
      application = { status: 'applied', appliedBy: 'client' };
    } else {
      try {
        await dataSource.applyChanges(graphKey, action.preview);
        application = { status: 'applied', appliedBy: 'server' };
      } catch (error) {
        if (!(error instanceof AppError) || !OUTDATED_PROPOSAL_CODES.has(error.code)) throw error;
        application = { status: 'failed', reason: error.message };
        this.logger.info('proposal_apply_failed', { graphKey, code: error.code, toolCallId: action.toolCallId });
      }
    }
    // The graph changed, may change soon through the client, or moved on since the proposal: the next question reads it afresh.
    this.options.graphChanged(graphKey, dataSource.workspace);
    return application;
  }
}

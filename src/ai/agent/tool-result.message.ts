import type { ActionApplication } from '../actions/action.applier';

/**
 * The JSON tool results the model receives for calls the loop does not execute as reads: the
 * outcome of a proposal after the human decided (docs/protocol.md §3), and errors it can correct.
 */

export type ProposalStatus = 'approved' | 'rejected' | 'failed';

export interface ProposalOutcome {
  status: ProposalStatus;
  message: string;
  feedback?: string;
}

/** Feedback recorded on a proposal the user left unanswered by sending a new message. */
export const SUPERSEDED_FEEDBACK = 'superseded by a new message';

export function proposalResultContent(outcome: ProposalOutcome): string {
  const body: ProposalOutcome = { status: outcome.status, message: outcome.message };
  if (outcome.feedback !== undefined && outcome.feedback !== '') body.feedback = outcome.feedback;
  return JSON.stringify(body);
}

/** A call the loop refused (malformed JSON, invalid arguments, unknown tool): the model may call again. */
export function toolErrorContent(message: string): string {
  return JSON.stringify({ status: 'error', message });
}

/**
 * The result of a proposal the action policy applied without a human (docs/policy.md):
 * `{ "status": "applied", "appliedBy", "message" }`, or `{ "status": "failed", "message" }` when the graph refused it.
 */
export function autonomousResultContent(application: ActionApplication): string {
  if (application.status === 'failed') return JSON.stringify({ status: 'failed', message: AUTONOMOUS_MESSAGES.failed(application.reason) });
  const message = application.appliedBy === 'server' ? AUTONOMOUS_MESSAGES.appliedOnServer : AUTONOMOUS_MESSAGES.sentToClient;
  return JSON.stringify({ status: 'applied', appliedBy: application.appliedBy, message });
}

const AUTONOMOUS_MESSAGES = {
  appliedOnServer: 'Applied to the graph without approval, as the policy of this workspace allows.',
  sentToClient: "Sent to the user's editor, which applies it without approval, as the policy of this workspace allows.",
  failed: (reason: string) => `It could not be applied: ${reason}. Nothing was changed.`,
} as const;

/** What the model is told about each kind of outcome (English: the model's working language here). */
export const PROPOSAL_MESSAGES = {
  appliedOnServer: 'The user approved the proposal and it was applied to the graph.',
  approvedForClient: "The user approved the proposal; it is applied through the user's editor.",
  rejected: 'The user rejected the proposal. Nothing was changed.',
  superseded: 'The proposal was not applied: the user sent a new message instead of answering it.',
  notReached: 'Not processed: an earlier proposal of the same batch was superseded by a new user message.',
  failed: (reason: string) => `The user approved the proposal but it could not be applied: ${reason}. Nothing was changed.`,
} as const;

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

/** What the model is told about each kind of outcome (English: the model's working language here). */
export const PROPOSAL_MESSAGES = {
  appliedOnServer: 'The user approved the proposal and it was applied to the graph.',
  approvedForClient: "The user approved the proposal; it is applied through the user's editor.",
  rejected: 'The user rejected the proposal. Nothing was changed.',
  superseded: 'The proposal was not applied: the user sent a new message instead of answering it.',
  notReached: 'Not processed: an earlier proposal of the same batch was superseded by a new user message.',
  failed: (reason: string) => `The user approved the proposal but it could not be applied: ${reason}. Nothing was changed.`,
} as const;

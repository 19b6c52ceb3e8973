import type { Locale } from '../../config/app-config';

/**
 * The JSON tool results the model receives for calls the loop does not execute as reads: the
 * outcome of a proposal after the human decided (docs/protocol.md §3), and errors it can correct.
 * Their texts are in the AI_LOCALE language, as the prompt is (docs/agent.md, "Locale"); the
 * statuses and the supersede feedback are the contract's and stay as they are.
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

export interface ProposalMessages {
  appliedOnServer: string;
  approvedForClient: string;
  rejected: string;
  superseded: string;
  notReached: string;
  failed: (reason: string) => string;
}

/** What the model is told about each kind of outcome, per AI_LOCALE. */
export const PROPOSAL_MESSAGES: Readonly<Record<Locale, ProposalMessages>> = Object.freeze({
  en: {
    appliedOnServer: 'The user approved the proposal and it was applied to the graph.',
    approvedForClient: "The user approved the proposal; it is applied through the user's editor.",
    rejected: 'The user rejected the proposal. Nothing was changed.',
    superseded: 'The proposal was not applied: the user sent a new message instead of answering it.',
    notReached: 'Not processed: an earlier proposal of the same batch was superseded by a new user message.',
    failed: (reason) => `The user approved the proposal but it could not be applied: ${reason}. Nothing was changed.`,
  },
  fr: {
    appliedOnServer: "L'utilisateur a approuvé la proposition et elle a été appliquée au graph.",
    approvedForClient: "L'utilisateur a approuvé la proposition ; elle est appliquée par l'éditeur de l'utilisateur.",
    rejected: "L'utilisateur a refusé la proposition. Rien n'a été modifié.",
    superseded: "La proposition n'a pas été appliquée : l'utilisateur a envoyé un nouveau message au lieu d'y répondre.",
    notReached: "Non traité : une proposition précédente du même lot a été remplacée par un nouveau message de l'utilisateur.",
    failed: (reason) => `L'utilisateur a approuvé la proposition mais elle n'a pas pu être appliquée : ${reason}. Rien n'a été modifié.`,
  },
});

import type { Locale } from '../../config/app-config';
import type { ChangedDocument } from '../../conversation/proposal-preview';
import type { ActionApplication } from '../actions/checked-action';

/**
 * The JSON tool results the model receives for calls the loop does not execute as reads: the
 * outcome of a proposal after the human decided, and errors it can correct.
 * Their texts are in the AI_LOCALE language, as the prompt is; the
 * statuses and the supersede feedback are the contract's and stay as they are.
 */

export type ProposalStatus = 'approved' | 'rejected' | 'failed' | 'stale';

/** An item of a batch as the model is told it was applied or declined. */
export interface ItemMention {
  itemId: string;
  description: string;
}

export interface ProposalOutcome {
  status: ProposalStatus;
  message: string;
  feedback?: string;
  /** stale: what changed since the proposal. */
  changed?: ChangedDocument[];
  /** Part of a batch approved: the items applied and declined. */
  appliedItems?: ItemMention[];
  declinedItems?: ItemMention[];
}

/** Feedback recorded on a proposal the user left unanswered by sending a new message. */
export const SUPERSEDED_FEEDBACK = 'superseded by a new message';

export function proposalResultContent(outcome: ProposalOutcome): string {
  const body: ProposalOutcome = { status: outcome.status, message: outcome.message };
  if (outcome.changed) body.changed = outcome.changed;
  if (outcome.appliedItems) body.appliedItems = outcome.appliedItems;
  if (outcome.declinedItems) body.declinedItems = outcome.declinedItems;
  if (outcome.feedback !== undefined && outcome.feedback !== '') body.feedback = outcome.feedback;
  return JSON.stringify(body);
}

/** A call the loop refused (malformed JSON, invalid arguments, unknown tool): the model may call again. */
export function toolErrorContent(message: string): string {
  return JSON.stringify({ status: 'error', message });
}

/**
 * The result of a proposal the action policy applied without a human:
 * `{ "status": "applied", "appliedBy", "message" }`, or `{ "status": "failed", "message" }` when the graph refused it.
 */
export function autonomousResultContent(application: ActionApplication, locale: Locale = 'en'): string {
  const messages = AUTONOMOUS_MESSAGES[locale] ?? AUTONOMOUS_MESSAGES.en;
  if (application.status === 'failed')
    return JSON.stringify({ status: 'failed', message: messages.failed(application.reason) });
  if (application.status === 'stale')
    return JSON.stringify({ status: 'stale', message: messages.stale, changed: application.changed });
  const message = application.appliedBy === 'server' ? messages.appliedOnServer : messages.sentToClient;
  return JSON.stringify({ status: 'applied', appliedBy: application.appliedBy, message });
}

interface AutonomousMessages {
  appliedOnServer: string;
  sentToClient: string;
  stale: string;
  failed: (reason: string) => string;
}

const AUTONOMOUS_MESSAGES: Readonly<Record<Locale, AutonomousMessages>> = Object.freeze({
  en: {
    appliedOnServer: 'Applied to the graph without approval, as the policy of this workspace allows.',
    sentToClient:
      "Sent to the user's editor, which applies it without approval, as the policy of this workspace allows.",
    stale:
      'Not applied: the graph changed since you made this proposal (see "changed"). Nothing was changed. Read the graph again and propose anew if it still makes sense.',
    failed: (reason) => `It could not be applied: ${reason}. Nothing was changed.`,
  },
  fr: {
    appliedOnServer: 'Appliqué au graph sans approbation, comme la politique de ce workspace le permet.',
    sentToClient:
      "Envoyé à l'éditeur de l'utilisateur, qui l'applique sans approbation, comme la politique de ce workspace le permet.",
    stale:
      'Non appliqué : le graph a changé depuis cette proposition (voir "changed"). Rien n\'a été modifié. Relis le graph et propose à nouveau si cela a encore du sens.',
    failed: (reason) => `Cela n'a pas pu être appliqué : ${reason}. Rien n'a été modifié.`,
  },
});

export interface ProposalMessages {
  appliedOnServer: string;
  approvedForClient: string;
  /** Part of a batch approved: applied (or sent), the rest declined. */
  partlyApproved: string;
  stale: string;
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
    partlyApproved:
      'The user approved part of the proposal: the items in "appliedItems" were applied, those in "declinedItems" were not.',
    stale:
      'The user approved the proposal but the graph changed since it was made (see "changed"): nothing was applied. Read the graph again and propose anew if it still makes sense.',
    rejected: 'The user rejected the proposal. Nothing was changed.',
    superseded: 'The proposal was not applied: the user sent a new message instead of answering it.',
    notReached: 'Not processed: an earlier proposal of the same batch was superseded by a new user message.',
    failed: (reason) => `The user approved the proposal but it could not be applied: ${reason}. Nothing was changed.`,
  },
  fr: {
    appliedOnServer: "L'utilisateur a approuvé la proposition et elle a été appliquée au graph.",
    approvedForClient: "L'utilisateur a approuvé la proposition ; elle est appliquée par l'éditeur de l'utilisateur.",
    partlyApproved:
      'L\'utilisateur a approuvé une partie de la proposition : les éléments de "appliedItems" ont été appliqués, ceux de "declinedItems" non.',
    stale:
      'L\'utilisateur a approuvé la proposition mais le graph a changé depuis (voir "changed") : rien n\'a été appliqué. Relis le graph et propose à nouveau si cela a encore du sens.',
    rejected: "L'utilisateur a refusé la proposition. Rien n'a été modifié.",
    superseded:
      "La proposition n'a pas été appliquée : l'utilisateur a envoyé un nouveau message au lieu d'y répondre.",
    notReached:
      "Non traité : une proposition précédente du même lot a été remplacée par un nouveau message de l'utilisateur.",
    failed: (reason) =>
      `L'utilisateur a approuvé la proposition mais elle n'a pas pu être appliquée : ${reason}. Rien n'a été modifié.`,
  },
});

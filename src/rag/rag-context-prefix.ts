import type { Locale } from '../config/app-config';

/**
 * First line of the per-question context message. The agent sends the message built by
 * buildContextMessage right before the user's question; the stable system prompt refers to it by
 * this prefix.
 */
export const RAG_CONTEXT_PREFIX: Readonly<Record<Locale, string>> = Object.freeze({
  en: '[RAG context for this question]',
  fr: '[Contexte RAG pour cette question]',
});

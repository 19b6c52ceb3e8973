import type { Locale } from '../config/app-config';

interface MemoryContextTexts {
  recallTitle: string;
  summariesTitle: string;
  turn: (createdAt: string) => string;
  summary: (level: 1 | 2, createdAt: string) => string;
  score: (score: number) => string;
  stale: string;
}

/**
 * How remembered records are shown to the model: the block of recalled records (per message) and the
 * block of summaries standing for the part of a long history that is no longer sent. A record whose
 * nodes changed since it was written says so next to it.
 */
export const MEMORY_CONTEXT_TEXTS: Readonly<Record<Locale, MemoryContextTexts>> = {
  en: {
    recallTitle: '[Recalled from earlier in this conversation: may help with this message]',
    summariesTitle: '[Conversation so far: summaries of the earlier turns that are no longer shown below]',
    turn: (createdAt) => `Turn of ${createdAt}`,
    summary: (level, createdAt) => `${level === 1 ? 'Short-term' : 'Long-term'} summary written ${createdAt}`,
    score: (score) => `similarity ${score.toFixed(2)}`,
    stale: 'OUTDATED: a node it mentions changed since; check the graph before relying on it',
  },
  fr: {
    recallTitle: '[Rappel de plus tôt dans cette conversation : peut aider pour ce message]',
    summariesTitle: '[Conversation jusqu’ici : résumés des tours précédents qui ne sont plus affichés ci-dessous]',
    turn: (createdAt) => `Tour du ${createdAt}`,
    summary: (level, createdAt) => `Résumé ${level === 1 ? 'à court terme' : 'à long terme'} écrit le ${createdAt}`,
    score: (score) => `similarité ${score.toFixed(2)}`,
    stale: 'PÉRIMÉ : un nœud qu’il mentionne a changé depuis ; vérifier le graphe avant de s’y fier',
  },
};

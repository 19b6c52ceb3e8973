import type { Locale } from '../../config/app-config';

/** The tool the summarizer asks the model to call: its arguments are the structured summary. */
export const RECORD_SUMMARY_TOOL = 'record_summary';

interface SummaryPromptTexts {
  instructions: Record<1 | 2, string>;
  toolDescription: string;
  sourceTitle: Record<1 | 2, (index: number) => string>;
  extractiveLabel: string;
  asked: string;
  answered: string;
}

/**
 * The summarizer's prompt, in the service's locale. Level 1 reads
 * turns; level 2 reads level-1 summaries. The model answers by calling record_summary once.
 */
export const SUMMARY_PROMPT_TEXTS: Readonly<Record<Locale, SummaryPromptTexts>> = {
  en: {
    instructions: {
      1:
        'You write the memory of a conversation between a user and an assistant about a workflow graph. Summarize the turns below ' +
        `for the assistant, who will read your summary instead of them. Call the tool ${RECORD_SUMMARY_TOOL} exactly once. ` +
        'summary: at most 150 words: what the user wanted, what was found, decided or changed, and every fact the user stated that may ' +
        'matter later (names, values, preferences, constraints). nodesMentioned: the keys of the graph nodes discussed, exactly as ' +
        'written. keyFindings: short facts. toolsUsed: tool names. topics: a few words each. Use only what the turns say.',
      2:
        'You write the long-term memory of a conversation between a user and an assistant about a workflow graph. Merge the ' +
        `consecutive summaries below into one. Call the tool ${RECORD_SUMMARY_TOOL} exactly once. summary: at most 200 words, keeping ` +
        'the facts the user stated, the decisions and the changes made. nodesMentioned, keyFindings, toolsUsed, topics: the union of ' +
        'what matters, without repeats. Use only what the summaries say.',
    },
    toolDescription: 'Records the summary of the conversation part you were given.',
    sourceTitle: { 1: (index) => `--- Turn ${index} ---`, 2: (index) => `--- Summary ${index} ---` },
    extractiveLabel: 'Extractive summary (no language model is configured; sentences taken from the conversation):',
    asked: 'User',
    answered: 'Assistant',
  },
  fr: {
    instructions: {
      1:
        "Tu écris la mémoire d'une conversation entre un utilisateur et un assistant à propos d'un graphe de workflow. Résume les " +
        `tours ci-dessous pour l'assistant, qui lira ton résumé à leur place. Appelle l'outil ${RECORD_SUMMARY_TOOL} une seule fois. ` +
        "summary : au plus 150 mots : ce que l'utilisateur voulait, ce qui a été trouvé, décidé ou modifié, et chaque fait énoncé par " +
        "l'utilisateur qui pourra compter plus tard (noms, valeurs, préférences, contraintes). nodesMentioned : les clés des nœuds du " +
        'graphe dont il est question, telles quelles. keyFindings : des faits courts. toolsUsed : les noms des outils. topics : quelques ' +
        'mots chacun. N’utilise que ce que disent les tours.',
      2:
        "Tu écris la mémoire à long terme d'une conversation entre un utilisateur et un assistant à propos d'un graphe de workflow. " +
        `Fusionne les résumés consécutifs ci-dessous en un seul. Appelle l'outil ${RECORD_SUMMARY_TOOL} une seule fois. summary : au ` +
        "plus 200 mots, en gardant les faits énoncés par l'utilisateur, les décisions et les modifications. nodesMentioned, " +
        'keyFindings, toolsUsed, topics : l’union de ce qui compte, sans répétition. N’utilise que ce que disent les résumés.',
    },
    toolDescription: 'Enregistre le résumé de la partie de conversation fournie.',
    sourceTitle: { 1: (index) => `--- Tour ${index} ---`, 2: (index) => `--- Résumé ${index} ---` },
    extractiveLabel:
      'Résumé extractif (aucun modèle de langage n’est configuré ; phrases reprises de la conversation) :',
    asked: 'Utilisateur',
    answered: 'Assistant',
  },
};

import type { Locale } from '../../config/app-config';

/**
 * What the loop itself tells the model, in the AI_LOCALE language like the system prompt:
 * the notes sent (never stored) with a last call without tools, and the
 * results of calls it does not run.
 */
export interface LoopNotes {
  /** The tool rounds are spent (AI_MAX_TOOL_ROUNDS): the last call gets no tools. */
  roundsSpent: string;
  /** The run stopped making progress (smart stopping): the last call gets no tools. */
  noProgress: string;
  /** A call not run because the user stopped the generation. */
  cancelled: string;
  /** A call that repeats an earlier call of the same run, with the same arguments. */
  repeated: (earlierCallId: string) => string;
  /** A call beyond AI_MAX_TOOL_CALLS_PER_REPLY in one reply. */
  overCallLimit: (limit: number) => string;
}

export const LOOP_NOTES: Readonly<Record<Locale, LoopNotes>> = Object.freeze({
  en: {
    roundsSpent:
      'No more tool calls are available for this question. Answer now from the context and the tool results above, and say briefly what you could not check.',
    noProgress:
      'Your last tool calls brought nothing new (the same calls again, or no node you had not already seen). Do not call tools any more: answer now from the context and the tool results above, and say briefly what you could not find.',
    cancelled: 'Not executed: the user stopped the generation.',
    repeated: (earlierCallId) =>
      `Not run again: this call repeats call ${earlierCallId} of this answer with the same tool and arguments, and its result is above. Use that result, or call with other arguments.`,
    overCallLimit: (limit) =>
      `Not run: one reply may make at most ${limit} tool calls. Use the results of the first ${limit}, and call again in your next reply only if you still need this one.`,
  },
  fr: {
    roundsSpent:
      "Plus aucun appel d'outil n'est possible pour cette question. Réponds maintenant à partir du contexte et des résultats d'outils ci-dessus, et dis brièvement ce que tu n'as pas pu vérifier.",
    noProgress:
      "Tes derniers appels d'outils n'ont rien apporté de nouveau (les mêmes appels, ou aucun node que tu n'avais déjà vu). N'appelle plus d'outils : réponds maintenant à partir du contexte et des résultats d'outils ci-dessus, et dis brièvement ce que tu n'as pas trouvé.",
    cancelled: "Non exécuté : l'utilisateur a arrêté la génération.",
    repeated: (earlierCallId) =>
      `Non relancé : cet appel répète l'appel ${earlierCallId} de cette réponse avec le même outil et les mêmes arguments, et son résultat est plus haut. Utilise ce résultat, ou appelle avec d'autres arguments.`,
    overCallLimit: (limit) =>
      `Non exécuté : une réponse peut faire au plus ${limit} appels d'outils. Utilise les résultats des ${limit} premiers, et ne rappelle celui-ci dans ta prochaine réponse que s'il te manque encore.`,
  },
});

/** Which way along the edges a question looks from the nodes it names. */
export type FlowDirection = 'downstream' | 'upstream';

/** Words of a question about what comes after a node (English and French). */
const DOWNSTREAM_WORDS = [
  'after',
  'afterwards',
  'next',
  'then',
  'follow',
  'follows',
  'following',
  'lead',
  'leads',
  'goes',
  'go to',
  'downstream',
  'output',
  'outputs',
  'happen',
  'happens',
  'route to',
  'routes to',
  'leave',
  'leaves',
  // What a branch answers ("what is answered when the token is wrong?") comes after the check that chose it.
  'answered',
  'replied',
  'returned',
  'sent back',
  'après',
  'ensuite',
  'suivant',
  'suivants',
  'suivante',
  'suivantes',
  'suit',
  'suivent',
  'mène',
  'mènent',
  'se passe',
];
/** Words of a question about what comes before a node, or is plugged into it (an agent's models and tools are). */
const UPSTREAM_WORDS = [
  'before',
  'feed',
  'feeds',
  'feeding',
  'precede',
  'precedes',
  'preceding',
  'input',
  'inputs',
  'upstream',
  'come from',
  'comes from',
  'wired to',
  'plugged into',
  'plugged in',
  'avant',
  'précède',
  'précèdent',
  'alimente',
  'alimentent',
  'entrée',
  'entrées',
  'branché sur',
  'branchés sur',
  'branchée sur',
  'branchées sur',
];

const wordsPattern = (words: readonly string[]) => new RegExp(`(?<!\\p{L})(?:${words.join('|')})(?!\\p{L})`, 'iu');
const DOWNSTREAM = wordsPattern(DOWNSTREAM_WORDS);
const UPSTREAM = wordsPattern(UPSTREAM_WORDS);

/**
 * The direction a flow or neighbour question asks about:
 * `downstream` for "what happens after the webhook?", "que se passe-t-il ensuite ?"; `upstream` for
 * "which nodes feed the vector store?", "what is wired to the agent?"; null when it says neither or
 * both. Only words about order and wiring count, never a node or workflow name.
 */
export function askedFlowDirection(question: string): FlowDirection | null {
  const downstream = DOWNSTREAM.test(question);
  const upstream = UPSTREAM.test(question);
  return downstream === upstream ? null : downstream ? 'downstream' : 'upstream';
}

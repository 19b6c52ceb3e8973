/**
 * Words that carry no meaning for finding a node, dropped from queries and documents alike.
 * Lowercase and accent-folded (the tokenizer folds before it looks here). Deliberately short of
 * words that name things in workflows: `return`, `if`, `each`, `all`, `not`, `new`, `get`, `set`
 * stay searchable.
 */
const ENGLISH = [
  'a', 'about', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'been', 'being', 'but', 'by', 'can', 'could',
  'did', 'do', 'does', 'doing', 'for', 'from', 'had', 'has', 'have', 'he', 'her', 'his', 'how', 'i', 'in',
  'into', 'is', 'it', 'its', 'me', 'my', 'of', 'on', 'or', 'our', 'she', 'should', 'so', 'some', 'such',
  'than', 'that', 'the', 'their', 'them', 'then', 'there', 'these', 'they', 'this', 'those', 'to', 'too',
  'us', 'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will',
  'with', 'would', 'you', 'your',
];

const FRENCH = [
  'au', 'aux', 'avec', 'ce', 'ces', 'cet', 'cette', 'comment', 'dans', 'de', 'des', 'du', 'elle', 'elles',
  'en', 'est', 'et', 'etre', 'eux', 'il', 'ils', 'je', 'la', 'le', 'les', 'leur', 'leurs', 'lui', 'ma',
  'mais', 'me', 'mes', 'moi', 'mon', 'ne', 'nos', 'notre', 'nous', 'on', 'ou', 'par', 'pas', 'pour',
  'qu', 'que', 'quel', 'quelle', 'quelles', 'quels', 'qui', 'quoi', 'sa', 'se', 'ses', 'son', 'sont',
  'sur', 'ta', 'te', 'tes', 'toi', 'ton', 'tu', 'un', 'une', 'vos', 'votre', 'vous', 'ya',
];

export const SEARCH_STOP_WORDS: ReadonlySet<string> = new Set([...ENGLISH, ...FRENCH]);

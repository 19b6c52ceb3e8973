/**
 * Words the local embedding ignores: English and French function words and the JavaScript
 * keywords that fill every `process`. Without corpus statistics (a vector must depend on its own
 * text only) these would otherwise weigh on every vector. Lowercase and accent-folded: the
 * tokenizer looks here before stemming. Part of the local model's definition: changing the list
 * needs a new model version.
 */
export const EMBEDDING_STOP_WORDS: ReadonlySet<string> = new Set([
  // English
  'a', 'about', 'after', 'all', 'also', 'am', 'an', 'and', 'any', 'are', 'as', 'at', 'be', 'been', 'before',
  'being', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'done', 'each', 'either',
  'etc', 'ever', 'every', 'few', 'from', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'him', 'his',
  'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'me', 'might', 'more', 'most', 'must', 'my',
  'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our', 'ours', 'out', 'over', 'own',
  'please', 'same', 'shall', 'she', 'should', 'so', 'some', 'such', 'than', 'that', 'the', 'their', 'theirs', 'them',
  'then', 'there', 'these', 'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up', 'us', 'very',
  'was', 'we', 'were', 'what', 'when', 'where', 'whether', 'which', 'while', 'who', 'whom', 'whose', 'why', 'will',
  'with', 'within', 'would', 'you', 'your', 'yours',
  // French
  'ai', 'au', 'aux', 'avec', 'ce', 'ces', 'cet', 'cette', 'comme', 'comment', 'dans', 'de', 'des', 'donc', 'du',
  'elle', 'elles', 'en', 'est', 'et', 'etre', 'eu', 'il', 'ils', 'je', 'la', 'le', 'les', 'leur', 'leurs', 'lui',
  'ma', 'mais', 'me', 'mes', 'moi', 'mon', 'ne', 'nos', 'notre', 'nous', 'on', 'ou', 'par', 'pas', 'pour', 'quand',
  'qu', 'que', 'quel', 'quelle', 'quelles', 'quels', 'qui', 'quoi', 'sa', 'sans', 'se', 'ses', 'si', 'son', 'sont', 'sur',
  'ta', 'te', 'tes', 'toi', 'ton', 'tu', 'un', 'une', 'vos', 'votre', 'vous',
  // JavaScript keywords and literals (not those that name node types or ideas: switch, case, new, import)
  'async', 'await', 'catch', 'const', 'else', 'false', 'finally', 'function', 'let', 'null', 'return', 'throw',
  'true', 'try', 'typeof', 'undefined', 'var', 'void',
]);

import { LightStemmer } from './light.stemmer';
import { SEARCH_STOP_WORDS } from './search-stop-words';

/** Tokens longer than this are hashes, base64 or minified code: noise for search. */
const MAX_TOKEN_LENGTH = 40;

const LIGATURES: ReadonlyArray<[RegExp, string]> = [
  [/œ/g, 'oe'],
  [/Œ/g, 'OE'],
  [/æ/g, 'ae'],
  [/Æ/g, 'AE'],
  [/ß/g, 'ss'],
];

/**
 * Turns free text, identifiers and code into search terms, identically for queries and documents:
 *  - ligatures and accents are folded (Données → donnees), then case is folded;
 *  - camelCase and PascalCase are split (fetchApiKey → fetch api key, HTMLParser → html parser),
 *    as are word/number boundaries when the word has 2+ letters (splitter1 → splitter, but s3, v2 stay);
 *  - anything that is not a letter or digit separates tokens (kebab-case, snake_case, dots, quotes);
 *  - single characters and tokens over 40 characters are dropped, then English and French stop words;
 *  - each remaining token is stemmed lightly (see LightStemmer).
 */
export class SearchTextTokenizer {
  constructor(
    private readonly stemmer: LightStemmer = new LightStemmer(),
    private readonly stopWords: ReadonlySet<string> = SEARCH_STOP_WORDS,
  ) {}

  tokenize(text: string): string[] {
    if (!text) return [];
    let folded = text;
    for (const [pattern, replacement] of LIGATURES) folded = folded.replace(pattern, replacement);
    folded = folded
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
      .replace(/(\p{L}{2,})(\p{N})/gu, '$1 $2')
      .replace(/(\p{N})(\p{L}{2,})/gu, '$1 $2')
      .toLowerCase();
    const tokens: string[] = [];
    for (const raw of folded.split(/[^\p{L}\p{N}]+/u)) {
      if (raw.length < 2 || raw.length > MAX_TOKEN_LENGTH || this.stopWords.has(raw)) continue;
      tokens.push(this.stemmer.stem(raw));
    }
    return tokens;
  }
}

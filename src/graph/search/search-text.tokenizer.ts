import { LightStemmer } from './light.stemmer';
import { SEARCH_STOP_WORDS } from './search-stop-words';

/** Tokens longer than this are hashes, base64 or minified code: noise for search. */
const MAX_TOKEN_LENGTH = 40;

// eslint-disable-next-line no-control-regex -- the ASCII range starts at \x00
const ASCII_ONLY = /^[\x00-\x7f]*$/;
// Runs of letters and digits; combining marks stay inside words so decomposed accents (e + \u0301) fold
// like composed ones. Matched with a global regex: String.split(regex) is several times slower in V8.
const WORDS = /[\p{L}\p{N}\p{M}]+/gu;
const HAS_DIGIT = /\p{N}/u;

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
    const tokens: string[] = [];
    for (const chunk of text.match(WORDS) ?? []) {
      if (chunk.length < 2) continue;
      // Most chunks (code, keys, English) are ASCII: folding is then a no-op worth skipping.
      const word = ASCII_ONLY.test(chunk) ? chunk : foldAccents(chunk);
      const lower = word.toLowerCase();
      if (lower === word && !HAS_DIGIT.test(word)) {
        this.push(tokens, lower);
        continue;
      }
      // Mixed case or digits: split camelCase, acronyms and word/number boundaries within the chunk.
      if (word === chunk) {
        for (const part of splitAsciiIdentifier(word)) this.push(tokens, part.toLowerCase());
        continue;
      }
      const split = word
        .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
        .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
        .replace(/(\p{L}{2,})(\p{N})/gu, '$1 $2')
        .replace(/(\p{N})(\p{L}{2,})/gu, '$1 $2')
        .toLowerCase();
      for (const part of split.split(' ')) this.push(tokens, part);
    }
    return tokens;
  }

  private push(tokens: string[], raw: string): void {
    if (raw.length < 2 || raw.length > MAX_TOKEN_LENGTH || this.stopWords.has(raw)) return;
    tokens.push(this.stemmer.stem(raw));
  }
}

function foldAccents(word: string): string {
  let folded = word;
  for (const [pattern, replacement] of LIGATURES) folded = folded.replace(pattern, replacement);
  return folded.normalize('NFD').replace(/\p{M}+/gu, '');
}

const isUpper = (code: number) => code >= 65 && code <= 90;
const isLower = (code: number) => code >= 97 && code <= 122;
const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * The same splits as the Unicode regexes, by one scan of an ASCII word (the common case in code,
 * several times faster): lower|digit→Upper, ACRONYMWord, and letters(2+)↔digits.
 */
function splitAsciiIdentifier(word: string): string[] {
  const parts: string[] = [];
  let start = 0;
  const cut = (at: number) => {
    parts.push(word.slice(start, at));
    start = at;
  };
  for (let index = 1; index < word.length; index += 1) {
    const code = word.charCodeAt(index);
    const previous = word.charCodeAt(index - 1);
    if (isUpper(code) && (isLower(previous) || isDigit(previous))) cut(index);
    else if (isLower(code) && isUpper(previous) && index - 1 > start && isUpper(word.charCodeAt(index - 2)))
      cut(index - 1);
    else if (isDigit(code) && !isDigit(previous) && index - start >= 2 && !isDigit(word.charCodeAt(index - 2)))
      cut(index);
    else if (!isDigit(code) && isDigit(previous) && index + 1 < word.length && !isDigit(word.charCodeAt(index + 1)))
      cut(index);
  }
  parts.push(word.slice(start));
  return parts;
}

import { LightStemmer } from '../graph/search/light.stemmer';
import { SearchTextTokenizer } from '../graph/search/search-text.tokenizer';
import { EMBEDDING_STOP_WORDS } from './embedding-stop-words';
import { hashFeature } from './feature.hasher';
import { LocalEmbeddingRecipe } from './local-embedding.recipe';
import { SynchronousEmbeddingProvider } from './synchronous-embedding.provider';

/**
 * The default embedding: needs no network, no key and no model download, so the vector path of
 * hybrid retrieval works out of the box.
 *
 * How: "feature hashing" (Weinberger et al., 2009). Each text is cut into word unigrams, word
 * bigrams and character 3- to 5-grams of each word (fastText-style, with `<` `>` word boundaries);
 * each feature is hashed to one of `dimension` buckets with a hashed sign (+1/-1) so collisions
 * cancel out on average; counts are damped (1 + ln tf); each family is L2-normalised, weighted
 * (unigrams 0.5, character n-grams 0.35, bigrams 0.15: the cosine of two vectors is about that
 * weighted mix of the three families' cosines) and the sum is L2-normalised again.
 * Words come from the search tokenizer of the graph module (camelCase / kebab / snake split, accents
 * and case folded, light stemming), minus English/French function words and JavaScript keywords.
 *
 * It captures LEXICAL and SUB-WORD similarity ("fetchPlayers" ~ "fetch players", typos, split
 * identifiers), not meaning: synonyms and translations are invisible to it. Its cosines are lower than
 * a neural model's (a short query against a long node text: often 0.1-0.4), so thresholds tuned for
 * OpenAI models do not transfer.
 *
 * Deterministic: the same text always gives the same vector, on every machine. The model name
 * carries a version and the dimension (`local-hash-v1-512`): any change to the tokenizer or stemmer,
 * the stop words, the hash, the features or the weights must bump the version (a spec pins the
 * vectors of fixed texts to catch it), so that vectors stored by an
 * older version are never compared with new ones (the store compares only vectors of one model).
 */
export class LocalHashEmbeddingProvider extends SynchronousEmbeddingProvider {
  static readonly VERSION = 1;
  static readonly DEFAULT_DIMENSION = 512;
  /** Longer texts are cut: node texts are already capped at 8000 characters by their builder. */
  static readonly MAX_INPUT_CHARS = 8000;

  readonly modelName: string;
  readonly dimension: number;
  /** Below this, hits are mostly shared boilerplate words, not relatedness (see the header). */
  readonly minSimilarity = 0.1;

  constructor(options: { dimension?: number } = {}) {
    super();
    const dimension = options.dimension ?? LocalHashEmbeddingProvider.DEFAULT_DIMENSION;
    if (!Number.isInteger(dimension) || dimension < 16 || dimension > 8192) {
      throw new RangeError(`LocalHashEmbeddingProvider: dimension must be an integer in 16..8192, got ${dimension}`);
    }
    this.dimension = dimension;
    this.modelName = `local-hash-v${LocalHashEmbeddingProvider.VERSION}-${dimension}`;
  }

  get recipe(): LocalEmbeddingRecipe {
    return { model: 'hash', dimension: this.dimension };
  }

  /** The synchronous core. A text without any usable word gives the zero vector (similar to nothing). */
  vectorize(text: string): Float32Array {
    const words = contentWords(text.slice(0, LocalHashEmbeddingProvider.MAX_INPUT_CHARS));
    const unigrams = new Map<string, number>();
    const bigrams = new Map<string, number>();
    const charGrams = new Map<string, number>();
    words.forEach((word, index) => {
      count(unigrams, word);
      if (index > 0) count(bigrams, `b|${words[index - 1]} ${word}`);
    });
    // Character n-grams once per distinct word, weighted by its count: texts repeat their words a lot.
    for (const [word, occurrences] of unigrams) {
      if (/^\p{N}+$/u.test(word)) continue;
      const padded = `<${word}>`;
      for (let size = MIN_CHAR_GRAM; size <= MAX_CHAR_GRAM; size++) {
        for (let start = 0; start + size <= padded.length; start++) {
          count(charGrams, `c|${padded.slice(start, start + size)}`, occurrences);
        }
      }
    }

    const combined = new Float64Array(this.dimension);
    this.addFamily(combined, unigrams, UNIGRAM_WEIGHT, 'w|');
    this.addFamily(combined, bigrams, BIGRAM_WEIGHT);
    this.addFamily(combined, charGrams, CHAR_GRAM_WEIGHT);
    return toUnitFloat32(combined);
  }

  /** Adds one family's hashed, damped, L2-normalised counts, scaled so its squared norm is `weight`. */
  private addFamily(target: Float64Array, counts: Map<string, number>, weight: number, prefix = ''): void {
    if (counts.size === 0) return;
    const family = new Float64Array(this.dimension);
    for (const [feature, occurrences] of counts) {
      const hash = hashFeature(prefix + feature);
      const sign = hash & 0x80000000 ? -1 : 1;
      family[hash % this.dimension] += sign * (1 + Math.log(occurrences));
    }
    let squares = 0;
    for (const value of family) squares += value * value;
    if (squares === 0) return;
    const scale = Math.sqrt(weight / squares);
    for (let index = 0; index < family.length; index++) target[index] += family[index] * scale;
  }
}

const UNIGRAM_WEIGHT = 0.5;
const CHAR_GRAM_WEIGHT = 0.35;
const BIGRAM_WEIGHT = 0.15;
const MIN_CHAR_GRAM = 3;
const MAX_CHAR_GRAM = 5;
/** Longer digit runs are ids, phone numbers or timestamps, not words (years have 4 digits). */
const MAX_NUMBER_DIGITS = 4;

const tokenizer = new SearchTextTokenizer(new LightStemmer(), EMBEDDING_STOP_WORDS);

function contentWords(text: string): string[] {
  return tokenizer.tokenize(text).filter((word) => !(word.length > MAX_NUMBER_DIGITS && /^\p{N}+$/u.test(word)));
}

function count(counts: Map<string, number>, feature: string, occurrences = 1): void {
  counts.set(feature, (counts.get(feature) ?? 0) + occurrences);
}

function toUnitFloat32(vector: Float64Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const result = new Float32Array(vector.length);
  if (squares === 0) return result;
  const scale = 1 / Math.sqrt(squares);
  for (let index = 0; index < vector.length; index++) result[index] = vector[index] * scale;
  return result;
}

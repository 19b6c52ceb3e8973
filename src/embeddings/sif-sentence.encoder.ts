import { DomainLexicon } from '../graph/search/domain-lexicon';
import { LightStemmer } from '../graph/search/light.stemmer';
import { SearchTextTokenizer } from '../graph/search/search-text.tokenizer';
import { EMBEDDING_STOP_WORDS } from './embedding-stop-words';
import { WordVectors } from './word-vectors';

/** SIF's smoothing constant: a word of probability `a` weighs half as much as a rare one (Arora et al. use 1e-3). */
const SIF_A = 1e-3;
const EULER_GAMMA = 0.5772;
/** Halves of a glued compound word (`webhook`, `toggleswitch`) are at least this long. */
const MIN_COMPOUND_PART = 3;

/** Words as written (split, folded, no stemming): the table has inflected forms, not stems. */
const WORD_TOKENIZER = new SearchTextTokenizer(
  { stem: (token: string) => token } as LightStemmer,
  EMBEDDING_STOP_WORDS,
);

/**
 * A sentence vector from static word vectors: the SIF-weighted average of the unit vectors of its
 * words, minus its component along the table's common direction, scaled to unit length ("smooth
 * inverse frequency", Arora et al., 2017). Frequent words weigh little (a / (a + p(word)), p estimated
 * from the word's rank by Zipf's law), so `send`, `email` and `staff` carry a question, not `the` or `get`.
 *
 * Words come from the search tokenizer without stemming (camelCase, kebab-case and snake_case split;
 * accents and case folded; English and French function words and JavaScript keywords dropped). A word
 * the table lacks is looked up as its singular or bare verb (`entries` → `entry`, `scheduled` →
 * `schedule`), then as two glued words (`webhook` → `web` + `hook`); else it is skipped. A text that
 * reads as French also gets the English words of its French ones from the domain lexicon
 * (`courriel` → `email mail`): the table is English. The zero vector when no word is known.
 */
export class SifSentenceEncoder {
  private readonly frequencyNorm: number;
  private lexicon: DomainLexicon | null = null;

  constructor(private readonly vectors: WordVectors) {
    // Zipf: p(rank r) ≈ 1 / (r × H_N), H_N the harmonic number of the vocabulary's size.
    this.frequencyNorm = Math.log(Math.max(2, vectors.sourceWords)) + EULER_GAMMA;
  }

  get dimension(): number {
    return this.vectors.dimension;
  }

  encode(text: string): Float32Array {
    const sum = new Float64Array(this.vectors.dimension);
    const words = WORD_TOKENIZER.tokenize(text);
    const lexicon = (this.lexicon ??= new DomainLexicon());
    if (lexicon.isFrench(text)) words.push(...WORD_TOKENIZER.tokenize(lexicon.translationText(text)));
    for (const word of words) {
      for (const index of this.rowsOf(word)) this.vectors.addUnitVector(sum, index, this.weightOf(index));
    }
    const common = this.vectors.commonDirection;
    let projection = 0;
    for (let component = 0; component < sum.length; component++) projection += sum[component] * common[component];
    let squares = 0;
    for (let component = 0; component < sum.length; component++) {
      sum[component] -= projection * common[component];
      squares += sum[component] ** 2;
    }
    const result = new Float32Array(sum.length);
    if (squares === 0) return result;
    const inverse = 1 / Math.sqrt(squares);
    for (let component = 0; component < sum.length; component++) result[component] = sum[component] * inverse;
    return result;
  }

  private weightOf(index: number): number {
    const probability = 1 / (this.vectors.rankOf(index) * this.frequencyNorm);
    return SIF_A / (SIF_A + probability);
  }

  /** The table rows a word stands for: itself, a base form, or the two halves of a glued compound. */
  private rowsOf(word: string): number[] {
    const direct = this.vectors.indexOf(word);
    if (direct >= 0) return [direct];
    for (const form of baseForms(word)) {
      const index = this.vectors.indexOf(form);
      if (index >= 0) return [index];
    }
    return /^[a-z]+$/.test(word) ? this.compoundRows(word) : [];
  }

  /** The split into two known words whose rarer half is the most frequent (`webhook` → web + hook). */
  private compoundRows(word: string): number[] {
    let best: number[] = [];
    let bestRank = Infinity;
    for (let cut = MIN_COMPOUND_PART; cut <= word.length - MIN_COMPOUND_PART; cut++) {
      const left = this.vectors.indexOf(word.slice(0, cut));
      const right = this.vectors.indexOf(word.slice(cut));
      if (left < 0 || right < 0) continue;
      const rarer = Math.max(this.vectors.rankOf(left), this.vectors.rankOf(right));
      if (rarer < bestRank) {
        bestRank = rarer;
        best = [left, right];
      }
    }
    return best;
  }
}

/** Candidate base forms of an English word the table lacks, most likely first. */
function baseForms(word: string): string[] {
  const forms: string[] = [];
  if (word.endsWith('ies')) forms.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) forms.push(word.slice(0, -2));
  if (word.endsWith('s')) forms.push(word.slice(0, -1));
  if (word.endsWith('ing')) forms.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  if (word.endsWith('ed')) forms.push(word.slice(0, -2), word.slice(0, -1));
  return forms;
}

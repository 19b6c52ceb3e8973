import { CONCEPTS } from './domain-lexicon.data';
import { SearchTextTokenizer } from './search-text.tokenizer';

/** How much a synonym found through the lexicon counts, against 1 for a word of the question. */
export const SYNONYM_WEIGHT = 0.5;
/** How much an English word reached from a French one counts (the French word itself rarely occurs in a graph). */
export const TRANSLATION_WEIGHT = 1;

/**
 * Words that only a French sentence has: a question holding one is read as French, and only then
 * are its words translated (a few French words are English words too: "note", "lot", "site").
 */
const FRENCH_MARKERS =
  /(?:^|[^\p{L}])(?:les|des|du|une|est|sont|où|quel|quelle|quels|quelles|qu|dans|avec|après|avant|comment|pourquoi|quand|cette|ces|nœud|noeud|nœuds|noeuds|se|il|elle)(?=$|[^\p{L}])/iu;

/** Regular French verb endings: the lexicon lists infinitives, questions conjugate them. */
const VERB_ENDINGS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['er', ['e', 'es', 'ent', 'é', 'ée', 'és', 'ées', 'ons', 'ez', 'ait', 'aient', 'era', 'eront']],
  ['ir', ['it', 'is', 'issent', 'i', 'ie', 'is', 'ies', 'ira', 'iront']],
  ['re', ['', 's', 't', 'ent', 'u', 'ue', 'us', 'ues', 'ra', 'ront']],
];

/**
 * The domain lexicon of workflow graphs (data and its rules: domain-lexicon.data.ts),
 * compiled into search terms with the same tokenizer as
 * the index, so both meet on the same stems: a French question's words lead to their English
 * equivalents, and any question's words to their synonyms, at a lower weight.
 */
export class DomainLexicon {
  /** French phrase (stemmed terms joined by a space) → English terms. */
  private readonly translations = new Map<string, Set<string>>();
  /** French phrase (stemmed terms joined by a space) → the English words as written, for stores that analyse text themselves. */
  private readonly translationWords = new Map<string, Set<string>>();
  /** Longest French phrase, in terms. */
  private readonly longestPhrase: number;
  /** English term → its synonyms. */
  private readonly synonyms = new Map<string, Set<string>>();

  constructor(private readonly tokenizer: SearchTextTokenizer = new SearchTextTokenizer()) {
    let longest = 1;
    for (const [english, french] of CONCEPTS) {
      const englishTerms = new Set(this.tokenizer.tokenize(english.replace(/_/g, ' ')));
      for (const term of englishTerms) {
        const others = [...englishTerms].filter((other) => other !== term);
        if (others.length > 0) addAll(this.synonyms, term, others);
      }
      for (const word of french.split(/\s+/).filter(Boolean)) {
        for (const form of frenchForms(word)) {
          const terms = this.tokenizer.tokenize(form.replace(/_/g, ' '));
          if (terms.length === 0 || (terms.length === 1 && englishTerms.has(terms[0]))) continue;
          addAll(this.translations, terms.join(' '), [...englishTerms]);
          addAll(this.translationWords, terms.join(' '), english.split(/\s+/));
          longest = Math.max(longest, terms.length);
        }
      }
    }
    this.longestPhrase = longest;
  }

  /** Whether a question reads as French (it holds a French function word). */
  isFrench(text: string): boolean {
    return FRENCH_MARKERS.test(text);
  }

  /**
   * The weighted terms to search for: the question's own terms (weight 1), the English terms of
   * its French words and phrases when it reads as French, and the synonyms of all those.
   */
  expandQuery(terms: readonly string[], text: string): Map<string, number> {
    const weights = new Map<string, number>();
    const raise = (term: string, weight: number) => {
      if ((weights.get(term) ?? 0) < weight) weights.set(term, weight);
    };
    for (const term of terms) raise(term, 1);
    if (this.isFrench(text)) {
      for (const english of this.phrasesOf(terms, this.translations))
        for (const term of english) raise(term, TRANSLATION_WEIGHT);
    }
    for (const [term, weight] of [...weights]) {
      for (const synonym of this.synonyms.get(term) ?? []) raise(synonym, weight * SYNONYM_WEIGHT);
    }
    return weights;
  }

  /**
   * For a store that analyses queries itself (ArangoSearch): the English words of a French
   * question's words, as written, to search along with the question ('' when it reads as English).
   */
  translationText(text: string): string {
    if (!this.isFrench(text)) return '';
    const words = new Set<string>();
    for (const english of this.phrasesOf(this.tokenizer.tokenize(text), this.translationWords))
      for (const word of english) words.add(word);
    return [...words].join(' ');
  }

  /** The entries of `table` found in `terms`, the longest phrase first at each position. */
  private *phrasesOf(terms: readonly string[], table: ReadonlyMap<string, Set<string>>): Iterable<Set<string>> {
    for (let start = 0; start < terms.length; start += 1) {
      for (let length = Math.min(this.longestPhrase, terms.length - start); length >= 1; length -= 1) {
        const found = table.get(terms.slice(start, start + length).join(' '));
        if (!found) continue;
        yield found;
        break;
      }
    }
  }
}

function addAll(map: Map<string, Set<string>>, key: string, values: readonly string[]): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  for (const value of values) set.add(value);
}

/** A French word and, when it is an infinitive, its regular forms; a phrase (`mise_à_jour`) as is. */
function frenchForms(word: string): string[] {
  if (word.includes('_')) return [word];
  const forms = [word];
  for (const [infinitive, endings] of VERB_ENDINGS) {
    if (!word.endsWith(infinitive) || word.length <= infinitive.length + 2) continue;
    const stem = word.slice(0, -infinitive.length);
    for (const ending of endings) forms.push(stem + ending);
  }
  return forms;
}

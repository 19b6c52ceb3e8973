import { distilWordVectors, lexiconEnglishWords, WinkWordEmbeddings } from './word-vectors.distiller';

describe(distilWordVectors.name, () => {
  // wink's layout: each vector is its components, then its L2 norm, then its rank index.
  const words = ['the', ',', 'of', '1999', 's3', 'mp3', 'email', 'Paris', 'send', 'webhook', 'zebra'];
  const source: WinkWordEmbeddings = {
    dimensions: 2,
    wordIndex: 3,
    words,
    vectors: Object.fromEntries(words.map((word, index) => [word, [index, -index, 1, index]])),
  };

  it('keeps the most frequent plain lowercase words, then the extra words the source has, by rank', () => {
    const entries = distilWordVectors(source, { frequentWords: 4, extraWords: ['zebra', 'unknown', 'the'] });
    // Punctuation, numbers, "s3" (one letter) and capitalised words are not plain words.
    expect(entries.map((entry) => entry.word)).toEqual(['the', 'of', 'mp3', 'email', 'zebra']);
    expect(entries[2]).toEqual({ word: 'mp3', rank: 6, vector: [5, -5] });
  });

  it('lists the domain lexicon’s English words, lowercased', () => {
    const lexicon = lexiconEnglishWords();
    expect(lexicon).toEqual(expect.arrayContaining(['email', 'send', 'schedule']));
    expect(lexicon.every((word) => word === word.toLowerCase() && !/\s/.test(word))).toBe(true);
  });
});

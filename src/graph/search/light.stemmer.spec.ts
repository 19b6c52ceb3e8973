import { LightStemmer } from './light.stemmer';

describe(LightStemmer.name, () => {
  const stemmer = new LightStemmer();
  const sameStem = (...words: string[]) => new Set(words.map((word) => stemmer.stem(word))).size === 1;

  it('conflates English plurals and verb forms', () => {
    expect(sameStem('node', 'nodes')).toBe(true);
    expect(sameStem('entry', 'entries')).toBe(true);
    expect(sameStem('fetch', 'fetching', 'fetched')).toBe(true);
    expect(sameStem('filter', 'filters', 'filtered', 'filtering')).toBe(true);
    expect(sameStem('update', 'updates', 'updated', 'updating')).toBe(true);
    expect(sameStem('map', 'mapped', 'mapping')).toBe(true);
    expect(sameStem('process', 'processes', 'processed', 'processing')).toBe(true);
  });

  it('conflates French plurals and feminine forms once accents are folded', () => {
    expect(sameStem('donnee', 'donnees')).toBe(true);
    expect(sameStem('journal', 'journaux')).toBe(true);
  });

  it('leaves short words, words ending in -ss/-us/-is and words with digits alone', () => {
    for (const word of ['api', 'use', 'status', 'class', 'analysis', 'oauth2', '2024'])
      expect(stemmer.stem(word)).toBe(word);
  });

  it('does not strip -ing or -ed when too little would remain', () => {
    expect(stemmer.stem('string')).toBe('string');
    expect(stemmer.stem('thing')).toBe('thing');
    expect(stemmer.stem('speed')).toBe('speed');
  });
});

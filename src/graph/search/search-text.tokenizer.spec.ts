import { SearchTextTokenizer } from './search-text.tokenizer';

describe(SearchTextTokenizer.name, () => {
  const tokenizer = new SearchTextTokenizer();
  const tokenize = (text: string) => tokenizer.tokenize(text);

  it('splits camelCase, PascalCase and acronyms', () => {
    expect(tokenize('fetchApiKey')).toEqual(['fetch', 'api', 'key']);
    expect(tokenize('HTMLParser')).toEqual(['html', 'parser']);
    expect(tokenize('getHTTPResponse')).toEqual(['get', 'http', 'respons']);
  });

  it('splits kebab-case, snake_case, dots and punctuation', () => {
    expect(tokenize('fetch-api')).toEqual(['fetch', 'api']);
    expect(tokenize('sort_stats.top')).toEqual(['sort', 'stat', 'top']);
    expect(tokenize('incoming[0]?.data?.season')).toEqual(['incom', 'data', 'season']);
  });

  it('gives the same tokens for every spelling of one identifier', () => {
    const expected = tokenize('fetch api');
    for (const spelling of ['fetchApi', 'FetchAPI', 'fetch_api', 'FETCH-API', 'Fetch Api'])
      expect(tokenize(spelling)).toEqual(expected);
  });

  it('splits identifiers the same way whether they need accent folding or not', () => {
    for (const identifier of [
      'getHTTPResponse2024Data',
      'splitter1Node',
      'oauth2Token',
      'ABCdef',
      'v2Api',
      'x9Y',
      'parseJSON',
    ]) {
      const accented = identifier.replace(/e/, 'é');
      expect({ identifier, tokens: tokenize(accented) }).toEqual({ identifier, tokens: tokenize(identifier) });
    }
  });

  it('folds accents, ligatures and case', () => {
    expect(tokenize('Données ÉLÈVES cœur')).toEqual(tokenize('donnees eleves coeur'));
    expect(tokenize('Données')).toEqual(['donne']);
  });

  it('drops English and French stop words but keeps workflow words', () => {
    expect(tokenize('what does the error handler do')).toEqual(['error', 'handler']);
    expect(tokenize("qu'est-ce que fait le nœud de tri des données")).toEqual(['fait', 'noeud', 'tri', 'donne']);
    expect(tokenize('return if each')).toEqual(['return', 'if', 'each']);
  });

  it('splits words from numbers only when the word has two letters or more', () => {
    expect(tokenize('splitter1 wait2')).toEqual(['splitter', 'wait']);
    expect(tokenize('s3 v2 gpt4o')).toEqual(['s3', 'v2', 'gpt', '4o']);
    expect(tokenize('season 2024')).toEqual(['season', '2024']);
  });

  it('drops single characters and very long tokens', () => {
    expect(tokenize(`x y z ${'a'.repeat(41)} ok`)).toEqual(['ok']);
  });

  it('returns nothing for empty or symbol-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  --- ;; ')).toEqual([]);
  });

  it('keeps letters of other scripts', () => {
    expect(tokenize('Москва данные')).toEqual(['москва', 'данные']);
  });
});

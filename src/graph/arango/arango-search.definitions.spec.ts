import { createHash } from 'node:crypto';
import { ARANGO_NAMES } from './arango-names';
import { IDENTIFIER_SPLIT_QUERY, NODE_SEARCH_LINK, SEARCH_ANALYZERS } from './arango-search.definitions';

/** Runs the analyzer's REGEX_REPLACE chain with JavaScript regexes (the patterns use ASCII classes only). */
function splitLikeTheServer(input: string): string {
  const steps = [...IDENTIFIER_SPLIT_QUERY.matchAll(/REGEX_REPLACE\(@?\w+, "([^"]+)", "([^"]*)"\)/g)];
  expect(steps).toHaveLength(5);
  return steps.reduce((text, [, pattern, replacement]) => text.replace(new RegExp(pattern, 'g'), replacement), input);
}

describe('search definitions', () => {
  it('splits camelCase, acronyms, letter/digit runs and snake_case into words before the text analyzer', () => {
    expect(splitLikeTheServer('fetchPlayersFromAPI')).toBe('fetch Players From API');
    expect(splitLikeTheServer('HTMLParser')).toBe('HTML Parser');
    expect(splitLikeTheServer('max_games_played')).toBe('max games played');
    expect(splitLikeTheServer('season2024 v2 s3Bucket')).toBe('season 2024 v2 s3 Bucket');
  });

  it('defines both analyzers with the features BM25 needs, the identifier one as aql → text pipeline', () => {
    const byName = new Map(SEARCH_ANALYZERS.map((analyzer) => [analyzer.name, analyzer.options]));
    for (const options of byName.values()) expect(options.features).toEqual(expect.arrayContaining(['frequency', 'norm']));
    const prose = byName.get(ARANGO_NAMES.proseAnalyzer) as { type: string; properties: { stopwords: string[]; accent: boolean; stemming: boolean } };
    expect(prose).toMatchObject({ type: 'text', properties: { locale: 'en', case: 'lower', accent: false, stemming: true } });
    expect(prose.properties.stopwords).toEqual(expect.arrayContaining(['the', 'which', 'les']));
    const identifier = byName.get(ARANGO_NAMES.identifierAnalyzer) as { type: string; properties: { pipeline: Array<{ type: string }> } };
    expect(identifier.type).toBe('pipeline');
    expect(identifier.properties.pipeline.map((stage) => stage.type)).toEqual(['aql', 'text']);
  });

  it('links exactly the attributes the search query names, with the analyzers it uses', () => {
    const fields = NODE_SEARCH_LINK.fields ?? {};
    expect(NODE_SEARCH_LINK.includeAllFields).toBe(false);
    expect(Object.keys(fields).sort()).toEqual(['_key', 'aiSearchData', 'graphKey', 'process', 'type']);
    expect(fields.graphKey.analyzers).toEqual(['identity']);
    expect(fields.type.analyzers).toContain('identity');
    expect(fields.process.analyzers).toEqual(expect.arrayContaining([ARANGO_NAMES.identifierAnalyzer, ARANGO_NAMES.proseAnalyzer]));
  });
});

describe('search analyzer versions', () => {
  it('changes analyzer definitions only together with their _vN names (a server keeps the first definition it saw)', () => {
    const fingerprint = createHash('sha256').update(JSON.stringify(SEARCH_ANALYZERS)).digest('hex').slice(0, 16);
    // If this fails, the analyzers changed (e.g. the shared stop words): bump the _vN suffixes in
    // arango-names.ts (the view's link follows at the next start), then pin the new fingerprint here.
    expect({ names: SEARCH_ANALYZERS.map((analyzer) => analyzer.name), fingerprint }).toEqual({
      names: ['nodius_ai_prose_v1', 'nodius_ai_identifier_v1'],
      fingerprint: '3eb4adefc9cc6de8',
    });
  });
});

import { createHash } from 'node:crypto';
import { ARANGO_GRAPH_NAMES } from './arango-graph.names';
import {
  IDENTIFIER_INPUT_MAX_CHARS,
  IDENTIFIER_SPLIT_QUERY,
  NODE_SEARCH_LINK,
  SEARCH_ANALYZERS,
} from './arango-search.definitions';

/**
 * Runs the analyzer's query text as the server would, with JavaScript regexes (the patterns use ASCII
 * classes only): the input capped by LEFT, then each REGEX_REPLACE from the innermost out.
 */
function splitLikeTheServer(input: string): string {
  const cap = IDENTIFIER_SPLIT_QUERY.match(/LEFT\(@param, (\d+)\)/);
  const steps = [...IDENTIFIER_SPLIT_QUERY.matchAll(/, "([^"]+)", "([^"]*)"\)/g)];
  expect(steps).toHaveLength(5);
  return steps.reduce(
    (text, [, pattern, replacement]) => text.replace(new RegExp(pattern, 'g'), replacement),
    input.slice(0, Number(cap?.[1])),
  );
}

describe('search definitions', () => {
  it('splits camelCase, acronyms, letter/digit runs and snake_case into words before the text analyzer', () => {
    expect(splitLikeTheServer('fetchPlayersFromAPI')).toBe('fetch Players From API');
    expect(splitLikeTheServer('HTMLParser')).toBe('HTML Parser');
    expect(splitLikeTheServer('max_games_played')).toBe('max games played');
    expect(splitLikeTheServer('season2024 v2 s3Bucket')).toBe('season 2024 v2 s3 Bucket');
  });

  it('is one nested expression, so the server evaluates it without an AQL engine per indexed value', () => {
    // ArangoDB's aql analyzer takes its fast path when the plan is a single calculation (no LET, FOR, subquery).
    expect(IDENTIFIER_SPLIT_QUERY).toMatch(/^RETURN REGEX_REPLACE\(/);
    expect(IDENTIFIER_SPLIT_QUERY.match(/\bRETURN\b/g)).toHaveLength(1);
    expect(IDENTIFIER_SPLIT_QUERY).not.toMatch(/\b(LET|FOR|FILTER|COLLECT)\b/);
    expect(IDENTIFIER_SPLIT_QUERY.match(/@param/g)).toHaveLength(1);
    const opened = IDENTIFIER_SPLIT_QUERY.split('(').length;
    expect(IDENTIFIER_SPLIT_QUERY.split(')').length).toBe(opened);
  });

  it('reads at most the first 20,000 characters of a value, so a large process cannot exceed its memory limit', () => {
    expect(IDENTIFIER_INPUT_MAX_CHARS).toBe(20_000);
    expect(IDENTIFIER_SPLIT_QUERY).toContain(`LEFT(@param, ${IDENTIFIER_INPUT_MAX_CHARS})`);
    const bundled = `${'fetchPlayersFromAPI '.repeat(50_000)}tailMarker`;
    const split = splitLikeTheServer(bundled);
    expect(split.startsWith('fetch Players From API fetch')).toBe(true);
    expect(split).not.toContain('tail');
    expect(split.length).toBeLessThan(IDENTIFIER_INPUT_MAX_CHARS * 1.3);
  });

  it('defines both analyzers with the features BM25 needs, the identifier one as aql → text pipeline', () => {
    const byName = new Map(SEARCH_ANALYZERS.map((analyzer) => [analyzer.name, analyzer.options]));
    for (const options of byName.values())
      expect(options.features).toEqual(expect.arrayContaining(['frequency', 'norm']));
    const prose = byName.get(ARANGO_GRAPH_NAMES.proseAnalyzer) as {
      type: string;
      properties: { stopwords: string[]; accent: boolean; stemming: boolean };
    };
    expect(prose).toMatchObject({
      type: 'text',
      properties: { locale: 'en', case: 'lower', accent: false, stemming: true },
    });
    expect(prose.properties.stopwords).toEqual(expect.arrayContaining(['the', 'which', 'les']));
    const identifier = byName.get(ARANGO_GRAPH_NAMES.identifierAnalyzer) as {
      type: string;
      properties: { pipeline: Array<{ type: string }> };
    };
    expect(identifier.type).toBe('pipeline');
    expect(identifier.properties.pipeline.map((stage) => stage.type)).toEqual(['aql', 'text']);
  });

  it('links exactly the attributes the search query names, with the analyzers it uses, built in the background', () => {
    expect(NODE_SEARCH_LINK.inBackground).toBe(true);
    const fields = NODE_SEARCH_LINK.fields ?? {};
    expect(NODE_SEARCH_LINK.includeAllFields).toBe(false);
    expect(Object.keys(fields).sort()).toEqual(['_key', 'aiSearchData', 'graphKey', 'process', 'type']);
    expect(fields.graphKey.analyzers).toEqual(['identity']);
    expect(fields.type.analyzers).toContain('identity');
    expect(fields.process.analyzers).toEqual(
      expect.arrayContaining([ARANGO_GRAPH_NAMES.identifierAnalyzer, ARANGO_GRAPH_NAMES.proseAnalyzer]),
    );
  });
});

describe('search analyzer versions', () => {
  it('changes analyzer definitions only together with their _vN names (a server keeps the first definition it saw)', () => {
    const fingerprint = createHash('sha256').update(JSON.stringify(SEARCH_ANALYZERS)).digest('hex').slice(0, 16);
    // If this fails, the analyzers changed (e.g. the shared stop words): bump the _vN suffixes in
    // arango-graph.names.ts (the view's link follows at the next start), then pin the new fingerprint here.
    expect({ names: SEARCH_ANALYZERS.map((analyzer) => analyzer.name), fingerprint }).toEqual({
      names: ['nodius_ai_prose_v1', 'nodius_ai_identifier_v2'],
      fingerprint: '9255e51b8fde1b7a',
    });
  });
});

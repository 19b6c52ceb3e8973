import { CreateAnalyzerOptions } from 'arangojs/analyzers';
import { ArangoSearchViewLinkOptions } from 'arangojs/views';
import { MAX_PROCESS_CHARS } from '../search/node-search-fields';
import { SEARCH_STOP_WORDS } from '../search/search-stop-words';
import { ARANGO_GRAPH_NAMES, SEARCH_DATA_FIELD } from './arango-graph.names';

/**
 * The ArangoSearch side of BM25 search over nodes: two analyzers and the view link over nodius_nodes.
 *
 * Why these analyzers. Node content is JavaScript code and English (or French) prose. ArangoSearch's
 * `text` analyzer tokenizes words (Unicode word boundaries), folds case and accents, drops stop words
 * and stems, which suits prose, but keeps `fetchPlayers` and `max_games` as single tokens (UAX #29
 * does not split camelCase, and treats `_` as a letter). ArangoSearch has no camelCase splitter, so the
 * identifier analyzer is a pipeline: an `aql` analyzer first rewrites identifiers into words with
 * REGEX_REPLACE (camelCase and acronym boundaries, letter/digit boundaries, underscores), then the
 * same `text` treatment applies. This mirrors the embedded store's SearchTextTokenizer (same stop
 * words; Snowball English stemming instead of its light stemmer). The prose analyzer is indexed too
 * on code and data: it matches a whole identifier as written (`fetchplay`), which rewards exact use.
 * Queries go through the same analyzers server-side (TOKENS), so both sides meet on the same terms.
 *
 * Both analyzers are created at start when missing (arango-graph.schema.ts). Changing a definition means a
 * new name (the `_vN` suffix in arango-graph.names.ts): an analyzer in use by a view cannot be redefined.
 */

const ANALYZER_FEATURES: Array<'frequency' | 'norm' | 'position'> = ['frequency', 'norm', 'position'];

const TEXT_STAGE = {
  type: 'text' as const,
  properties: {
    locale: 'en',
    case: 'lower' as const,
    accent: false,
    stemming: true,
    stopwords: [...SEARCH_STOP_WORDS].sort(),
  },
};

/**
 * How identifiers are split into words, in order: camelCase boundaries, acronym boundaries
 * (`HTMLParser`), letter/digit boundaries, underscores. ASCII classes only, so the query text needs no
 * escaping; `$1 $2` are ICU replacement group references.
 */
export const IDENTIFIER_SPLIT_STEPS: ReadonlyArray<readonly [pattern: string, replacement: string]> = [
  ['([a-z0-9])([A-Z])', '$1 $2'],
  ['([A-Z]+)([A-Z][a-z])', '$1 $2'],
  ['([A-Za-z]{2,})([0-9])', '$1 $2'],
  ['([0-9])([A-Za-z]{2,})', '$1 $2'],
  ['_+', ' '],
];

/**
 * Characters of one value the identifier analyzer reads: the embedded store's bound on indexed code
 * (MAX_PROCESS_CHARS). Without it a large `process` could exceed the analyzer's memory limit (1 MiB
 * by default), and that node would silently drop out of the index.
 */
export const IDENTIFIER_INPUT_MAX_CHARS = MAX_PROCESS_CHARS;

/**
 * The identifier analyzer's query, run by the server on each indexed string (`@param`): ONE nested
 * expression, `RETURN REGEX_REPLACE(REGEX_REPLACE(… LEFT(@param, 20000) …))`. A query made of a single
 * expression is evaluated by ArangoDB's fast path for `aql` analyzers; a query with LET statements
 * runs a full AQL engine for every indexed value of every node write.
 */
export const IDENTIFIER_SPLIT_QUERY = `RETURN ${IDENTIFIER_SPLIT_STEPS.reduce(
  (expression, [pattern, replacement]) => `REGEX_REPLACE(${expression}, "${pattern}", "${replacement}")`,
  `LEFT(@param, ${IDENTIFIER_INPUT_MAX_CHARS})`,
)}`;

export const SEARCH_ANALYZERS: ReadonlyArray<{ name: string; options: CreateAnalyzerOptions }> = [
  { name: ARANGO_GRAPH_NAMES.proseAnalyzer, options: { ...TEXT_STAGE, features: ANALYZER_FEATURES } },
  {
    name: ARANGO_GRAPH_NAMES.identifierAnalyzer,
    options: {
      type: 'pipeline',
      features: ANALYZER_FEATURES,
      properties: {
        pipeline: [
          { type: 'aql', properties: { queryString: IDENTIFIER_SPLIT_QUERY, returnType: 'string', keepNull: false } },
          TEXT_STAGE,
        ],
      },
    },
  },
];

/**
 * How nodius_nodes is linked into the search view: only the attributes searched (arango-graph.queries.ts
 * lexicalSearch), so Nodius's other attributes cost nothing. `graphKey` and `type` also keep their
 * exact value (identity) for filtering and for matching types named by a node config. Built (or
 * rebuilt after a change) in the background: no exclusive lock on Nodius's collection meanwhile.
 */
export const NODE_SEARCH_LINK: ArangoSearchViewLinkOptions = {
  inBackground: true,
  includeAllFields: false,
  trackListPositions: false,
  storeValues: 'none',
  fields: {
    graphKey: { analyzers: ['identity'] },
    _key: { analyzers: [ARANGO_GRAPH_NAMES.identifierAnalyzer] },
    type: { analyzers: ['identity', ARANGO_GRAPH_NAMES.identifierAnalyzer] },
    process: { analyzers: [ARANGO_GRAPH_NAMES.identifierAnalyzer, ARANGO_GRAPH_NAMES.proseAnalyzer] },
    [SEARCH_DATA_FIELD]: { analyzers: [ARANGO_GRAPH_NAMES.identifierAnalyzer, ARANGO_GRAPH_NAMES.proseAnalyzer] },
  },
};

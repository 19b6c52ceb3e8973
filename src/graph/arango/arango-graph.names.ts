/**
 * Names of everything this service uses in an ArangoDB database. The collections are Nodius's own;
 * the view and analyzers are added by this service (arango-graph.schema.ts) and carry a
 * version suffix, because an analyzer cannot be redefined in place: a changed definition gets a new name.
 */
export const ARANGO_GRAPH_NAMES = {
  graphs: 'nodius_graphs',
  nodes: 'nodius_nodes',
  edges: 'nodius_edges',
  nodeConfigs: 'nodius_node_config',
  threads: 'nodius_ai_threads',
  /** ArangoSearch view over nodius_nodes for BM25. */
  searchView: 'nodius_ai_node_search_v1',
  /** English prose: word tokenizer, lowercase, accents folded, stemming, stop words. */
  proseAnalyzer: 'nodius_ai_prose_v1',
  /**
   * Code identifiers: camelCase / snake_case / digits split first, then the prose treatment. v2: one
   * nested expression over input capped at 20,000 characters (v1's four LETs ran the full AQL engine
   * per indexed value and could hit the analyzer's memory limit on a large `process`).
   */
  identifierAnalyzer: 'nodius_ai_identifier_v2',
} as const;

/**
 * Attribute this service writes on node documents: the string values of `data`, flattened, because
 * an ArangoSearch view can only search attributes it can name and `data` is free-form.
 */
export const SEARCH_DATA_FIELD = 'aiSearchData';

/** Node attributes holding the stored vector and what it was computed from. */
export const EMBEDDING_FIELDS = ['embedding', 'embeddingModel', 'embeddingHash'] as const;

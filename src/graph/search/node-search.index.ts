import { GraphNode, NodeTypeConfig } from '../graph.types';
import { Bm25Index, Bm25Options } from './bm25.index';
import { NODE_SEARCH_FIELD_WEIGHTS, NodeSearchField, nodeSearchText } from './node-search-fields';
import { SearchTextTokenizer } from './search-text.tokenizer';

export interface NodeSearchHit {
  nodeKey: string;
  score: number;
}

/** Exact-match tiers: a node whose whole key equals the query ranks above one whose type does. */
const KEY_TIER = 2;
const TYPE_TIER = 1;

/**
 * Lexical search over the nodes of one graph: BM25 over weighted fields (key, type, the type's
 * display name and description, data string values, process code; see node-search-fields.ts), plus
 * exact-match tiers so a query naming a node ("fetch-api", "fetchApi", "fetch api") or a type
 * ("filter", "API Call") puts those nodes first. Pure and immutable once built: the store rebuilds
 * it when the graph changes.
 */
export class NodeSearchIndex {
  private readonly bm25: Bm25Index;
  private readonly nodeKeys: string[] = [];
  private readonly tierByPhrase = new Map<string, Map<number, number>>();

  private constructor(
    private readonly tokenizer: SearchTextTokenizer,
    options: Bm25Options,
  ) {
    this.bm25 = new Bm25Index(options);
  }

  static build(
    nodes: Iterable<GraphNode>,
    configs: Iterable<NodeTypeConfig>,
    tokenizer: SearchTextTokenizer = new SearchTextTokenizer(),
    options: Bm25Options = { k1: 1.2, b: 0.75 },
  ): NodeSearchIndex {
    const index = new NodeSearchIndex(tokenizer, options);
    const configByType = new Map<string, NodeTypeConfig>();
    for (const config of configs) configByType.set(config._key, config);
    for (const node of nodes) index.add(node, configByType.get(node.type));
    return index;
  }

  get size(): number {
    return this.nodeKeys.length;
  }

  /** Best first, scores > 0; [] when no token of the query occurs anywhere (or the query has none). */
  search(query: string, maxResults: number): NodeSearchHit[] {
    const terms = this.tokenizer.tokenize(query);
    if (terms.length === 0 || maxResults <= 0) return [];
    const tiers = this.tierByPhrase.get(terms.join(' '));
    const hits = this.bm25.search(terms, maxResults, tiers ? (doc, maxScore) => (tiers.get(doc) ?? 0) * (maxScore + 1) : undefined);
    return hits.map(({ doc, score }) => ({ nodeKey: this.nodeKeys[doc], score }));
  }

  private add(node: GraphNode, config: NodeTypeConfig | undefined): void {
    const text = nodeSearchText(node, config);
    const tokens = {} as Record<NodeSearchField, string[]>;
    for (const field of Object.keys(NODE_SEARCH_FIELD_WEIGHTS) as NodeSearchField[]) tokens[field] = this.tokenizer.tokenize(text[field]);
    const doc = this.bm25.addDocument(
      (Object.keys(tokens) as NodeSearchField[]).map((field) => ({ tokens: tokens[field], weight: NODE_SEARCH_FIELD_WEIGHTS[field] })),
    );
    this.nodeKeys.push(node._key);
    this.addTier(tokens.key, doc, KEY_TIER);
    this.addTier(tokens.type, doc, TYPE_TIER);
    this.addTier(tokens.typeName, doc, TYPE_TIER);
  }

  private addTier(phraseTokens: string[], doc: number, tier: number): void {
    if (phraseTokens.length === 0) return;
    const phrase = phraseTokens.join(' ');
    let docs = this.tierByPhrase.get(phrase);
    if (!docs) {
      docs = new Map();
      this.tierByPhrase.set(phrase, docs);
    }
    docs.set(doc, Math.max(docs.get(doc) ?? 0, tier));
  }
}

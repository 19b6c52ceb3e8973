import { createHash } from 'node:crypto';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { Bm25Field, Bm25Index, Bm25Options, PackedBm25, UNPACK_STEP } from './bm25.index';
import { DomainLexicon } from './domain-lexicon';
import {
  MAX_DATA_CHARS,
  MAX_PROCESS_CHARS,
  NODE_SEARCH_FIELD_WEIGHTS,
  NodeSearchField,
  nodeSearchText,
} from './node-search-fields';
import { SearchTextTokenizer } from './search-text.tokenizer';
import { runAllSteps, Stepwise } from './stepwise';

export interface NodeSearchHit {
  nodeKey: string;
  score: number;
}

/** One tokenizer and its compiled lexicon for every index built with the defaults (compiling it costs ~5 ms). */
const SHARED_TOKENIZER = new SearchTextTokenizer();
const SHARED_LEXICON = new DomainLexicon(SHARED_TOKENIZER);

/** Exact-match tiers: a node whose whole key equals the query ranks above one whose type does. */
const KEY_TIER = 2;
const TYPE_TIER = 1;
/** Tiers are below this: one number holds a document and its tier (doc × TIER_SPAN + tier). */
const TIER_SPAN = 4;
const DEFAULT_BM25_OPTIONS: Bm25Options = { k1: 1.2, b: 0.75 };

/** Bump when what a node is indexed under changes in a way the fingerprint below cannot see (nodeSearchText's rules). */
const ANALYSIS_VERSION = 1;
/** Words that exercise every rule of the tokenizer and stemmer: their tokens are part of the fingerprint. */
const ANALYSIS_PROBE =
  'Les Données récupérées du fichier; fetchApiKey HTMLParser splitter1 s3 v2 companies running emails œuvre Straße ' +
  'naïve cafés ÉTÉ schedulers processing the quick brown foxes jumped x aVeryLongIdentifierThatGoesOnAndOnForeverAndEver';

/**
 * What a packed index must have been built with to be unpacked here: the analysis (tokenizer and
 * stemmer, as their tokens of a probe text show), the field weights, text limits, tiers and BM25
 * parameters. A snapshot of another format is rebuilt, never read.
 */
export const NODE_SEARCH_INDEX_FORMAT = createHash('sha256')
  .update(
    JSON.stringify([
      ANALYSIS_VERSION,
      NODE_SEARCH_FIELD_WEIGHTS,
      MAX_PROCESS_CHARS,
      MAX_DATA_CHARS,
      KEY_TIER,
      TYPE_TIER,
      DEFAULT_BM25_OPTIONS,
      SHARED_TOKENIZER.tokenize(ANALYSIS_PROBE),
    ]),
  )
  .digest('hex')
  .slice(0, 16);

/** A NodeSearchIndex as flat arrays (NodeSearchIndex.pack): moved between threads, or stored, without rebuilding it. */
export interface PackedNodeSearchIndex {
  /** NODE_SEARCH_INDEX_FORMAT of the code that packed it. */
  format: string;
  bm25: PackedBm25;
  /** Per document number: its node key, or null once removed. */
  nodeKeys: Array<string | null>;
  sheets: string[];
  /** The exact-match phrases; each document's (indexes into them) with its tier for each. */
  tierPhrases: string[];
  documentTierOffsets: Uint32Array;
  documentTierPhrases: Uint32Array;
  documentTiers: Uint8Array;
}

/**
 * Lexical search over the nodes of one graph: BM25 over weighted fields (key, type, the type's
 * display name and description, data string values, process code; see node-search-fields.ts), plus
 * exact-match tiers so a query naming a node ("fetch-api", "fetchApi", "fetch api") or a type
 * ("filter", "API Call") puts those nodes first. Queries go through the domain lexicon (a French
 * question also searches its English words; synonyms at half weight: domain-lexicon.ts), and can
 * be scoped to one sheet.
 *
 * Built once, then kept current node by node (replace / remove / append) with exact statistics:
 * after any sequence of changes it answers exactly as a fresh build over the same nodes in the same
 * order would (equal scores rank by that order). The caller keeps the order: `replace` leaves a node
 * where it was, `append` puts a new one after every other.
 */
export class NodeSearchIndex {
  private readonly bm25: Bm25Index;
  /** Per document number: its node key, or null once removed. */
  private readonly nodeKeys: Array<string | null> = [];
  /** Per document number: its node's sheet (for sheet-scoped searches). */
  private readonly sheets: string[] = [];
  /** Made on first use (an unpacked index is searched long before it is changed, if ever). */
  private docByKeyMap: Map<string, number> | null = new Map();
  private liveNodes = 0;
  /**
   * Exact-match phrase → the documents holding it, with their tier: one document (most phrases: a
   * node's key) as the number doc × TIER_SPAN + tier, several as a Map (a type's name).
   */
  private readonly tierByPhrase = new Map<string, number | Map<number, number>>();
  /** Per document number: the phrases it holds a tier under (to take it out again); a hole: read from `packed`. */
  private readonly tierPhrases: Array<string[] | null | undefined> = [];
  private packed: PackedNodeSearchIndex | null = null;

  private constructor(
    private readonly tokenizer: SearchTextTokenizer,
    private readonly lexicon: DomainLexicon,
    bm25: Bm25Index,
  ) {
    this.bm25 = bm25;
  }

  static build(
    nodes: Iterable<GraphNode>,
    configs: Iterable<NodeTypeConfig>,
    tokenizer: SearchTextTokenizer = SHARED_TOKENIZER,
    options: Bm25Options = DEFAULT_BM25_OPTIONS,
  ): NodeSearchIndex {
    const index = new NodeSearchIndex(
      tokenizer,
      tokenizer === SHARED_TOKENIZER ? SHARED_LEXICON : new DomainLexicon(tokenizer),
      new Bm25Index(options),
    );
    const configByType = new Map<string, NodeTypeConfig>();
    for (const config of configs) configByType.set(config._key, config);
    for (const node of nodes) index.append(node, configByType.get(node.type));
    return index;
  }

  /**
   * The index `packed` was made from, answering exactly as it did (default tokenizer). Throws when it
   * was packed by code of another NODE_SEARCH_INDEX_FORMAT. The packed arrays are used, not copied.
   */
  static fromPacked(packed: PackedNodeSearchIndex): NodeSearchIndex {
    return runAllSteps(NodeSearchIndex.unpacking(packed));
  }

  /** fromPacked in steps (see Stepwise): a caller gives the event loop a turn between them. */
  static *unpacking(packed: PackedNodeSearchIndex): Stepwise<NodeSearchIndex> {
    if (packed.format !== NODE_SEARCH_INDEX_FORMAT)
      throw new Error(`Search index of format ${packed.format}, this code reads ${NODE_SEARCH_INDEX_FORMAT}`);
    const index = new NodeSearchIndex(SHARED_TOKENIZER, SHARED_LEXICON, yield* Bm25Index.unpacking(packed.bm25));
    index.packed = packed;
    index.docByKeyMap = null;
    const { nodeKeys, sheets, tierPhrases, documentTierOffsets, documentTierPhrases, documentTiers } = packed;
    index.tierPhrases.length = nodeKeys.length;
    for (let doc = 0; doc < nodeKeys.length; doc += 1) {
      const key = nodeKeys[doc];
      index.nodeKeys.push(key);
      index.sheets.push(sheets[doc]);
      if (key === null) index.tierPhrases[doc] = null;
      else {
        index.liveNodes += 1;
        for (let entry = documentTierOffsets[doc]; entry < documentTierOffsets[doc + 1]; entry += 1)
          index.addTier(tierPhrases[documentTierPhrases[entry]], doc, documentTiers[entry]);
      }
      if (doc % UNPACK_STEP === UNPACK_STEP - 1) yield;
    }
    return index;
  }

  /** The index as flat arrays (see PackedNodeSearchIndex); this index stays as it was. */
  pack(): PackedNodeSearchIndex {
    const phraseIds = new Map<string, number>();
    const offsets = new Uint32Array(this.nodeKeys.length + 1);
    const phrases: number[] = [];
    const tiers: number[] = [];
    this.nodeKeys.forEach((key, doc) => {
      for (const phrase of new Set(this.tierPhrasesOf(doc) ?? [])) {
        const tier = this.tierOf(phrase, doc);
        if (tier === 0) continue;
        let id = phraseIds.get(phrase);
        if (id === undefined) {
          id = phraseIds.size;
          phraseIds.set(phrase, id);
        }
        phrases.push(id);
        tiers.push(tier);
      }
      offsets[doc + 1] = phrases.length;
    });
    return {
      format: NODE_SEARCH_INDEX_FORMAT,
      bm25: this.bm25.pack(),
      nodeKeys: this.nodeKeys.slice(),
      sheets: this.sheets.slice(),
      tierPhrases: [...phraseIds.keys()],
      documentTierOffsets: offsets,
      documentTierPhrases: Uint32Array.from(phrases),
      documentTiers: Uint8Array.from(tiers),
    };
  }

  /** Nodes in the index. */
  get size(): number {
    return this.liveNodes;
  }

  /** Places left by removed nodes (memory and a little search time; a rebuild reclaims them). */
  get removedCount(): number {
    return this.nodeKeys.length - this.liveNodes;
  }

  has(nodeKey: string): boolean {
    return this.docByKey().has(nodeKey);
  }

  /**
   * Best first, scores > 0; [] when no token of the query occurs anywhere (or the query has none).
   * With `sheet`, only that sheet's nodes are returned (scored against the whole graph's statistics).
   */
  search(query: string, maxResults: number, sheet?: string): NodeSearchHit[] {
    const terms = this.tokenizer.tokenize(query);
    if (terms.length === 0 || maxResults <= 0) return [];
    const phrase = terms.join(' ');
    const hits = this.bm25.search(
      this.lexicon.expandQuery(terms, query),
      maxResults,
      this.tierByPhrase.has(phrase) ? (doc, maxScore) => this.tierOf(phrase, doc) * (maxScore + 1) : undefined,
      sheet === undefined ? undefined : (doc) => this.sheets[doc] === sheet,
    );
    return hits.map(({ doc, score }) => ({ nodeKey: this.nodeKeys[doc] as string, score }));
  }

  /** Adds a node after every other one. Throws when its key is already indexed (use replace). */
  append(node: GraphNode, config: NodeTypeConfig | undefined): void {
    const docByKey = this.docByKey();
    if (docByKey.has(node._key)) throw new Error(`Node "${node._key}" is already indexed`);
    const { fields, tiers } = this.analyse(node, config);
    const doc = this.bm25.addDocument(fields);
    this.nodeKeys.push(node._key);
    this.sheets.push(node.sheet);
    this.tierPhrases.push(null);
    docByKey.set(node._key, doc);
    this.liveNodes += 1;
    this.addTiers(doc, tiers);
  }

  /** Re-indexes a node's new content at its place. Throws when its key is not indexed (use append). */
  replace(node: GraphNode, config: NodeTypeConfig | undefined): void {
    const doc = this.docByKey().get(node._key);
    if (doc === undefined) throw new Error(`Node "${node._key}" is not indexed`);
    const { fields, tiers } = this.analyse(node, config);
    this.removeTiers(doc);
    this.bm25.replaceDocument(doc, fields);
    this.sheets[doc] = node.sheet;
    this.addTiers(doc, tiers);
  }

  /** False when the key was not indexed. */
  remove(nodeKey: string): boolean {
    const docByKey = this.docByKey();
    const doc = docByKey.get(nodeKey);
    if (doc === undefined) return false;
    this.removeTiers(doc);
    this.bm25.removeDocument(doc);
    this.nodeKeys[doc] = null;
    docByKey.delete(nodeKey);
    this.liveNodes -= 1;
    return true;
  }

  private docByKey(): Map<string, number> {
    if (!this.docByKeyMap) {
      this.docByKeyMap = new Map();
      this.nodeKeys.forEach((key, doc) => {
        if (key !== null) this.docByKeyMap?.set(key, doc);
      });
    }
    return this.docByKeyMap;
  }

  private analyse(
    node: GraphNode,
    config: NodeTypeConfig | undefined,
  ): { fields: Bm25Field[]; tiers: Array<[string[], number]> } {
    const text = nodeSearchText(node, config);
    const tokens = {} as Record<NodeSearchField, string[]>;
    for (const field of Object.keys(NODE_SEARCH_FIELD_WEIGHTS) as NodeSearchField[])
      tokens[field] = this.tokenizer.tokenize(text[field]);
    const fields = (Object.keys(tokens) as NodeSearchField[]).map((field) => ({
      tokens: tokens[field],
      weight: NODE_SEARCH_FIELD_WEIGHTS[field],
    }));
    return {
      fields,
      tiers: [
        [tokens.key, KEY_TIER],
        [tokens.type, TYPE_TIER],
        [tokens.typeName, TYPE_TIER],
      ],
    };
  }

  private addTiers(doc: number, tiers: Array<[string[], number]>): void {
    this.setTiers(
      doc,
      tiers.flatMap(([phraseTokens, tier]): Array<[string, number]> =>
        phraseTokens.length === 0 ? [] : [[phraseTokens.join(' '), tier]],
      ),
    );
  }

  /** Gives `doc` each phrase's tier (the highest when a phrase comes twice). */
  private setTiers(doc: number, tiers: Array<[string, number]>): void {
    const phrases: string[] = [];
    for (const [phrase, tier] of tiers) {
      this.addTier(phrase, doc, tier);
      phrases.push(phrase);
    }
    this.tierPhrases[doc] = phrases;
  }

  /** `doc` holds `phrase` at `tier` at least. */
  private addTier(phrase: string, doc: number, tier: number): void {
    const entry = this.tierByPhrase.get(phrase);
    if (entry === undefined) this.tierByPhrase.set(phrase, doc * TIER_SPAN + tier);
    else if (typeof entry === 'number') {
      const holder = Math.floor(entry / TIER_SPAN);
      if (holder === doc) this.tierByPhrase.set(phrase, doc * TIER_SPAN + Math.max(entry % TIER_SPAN, tier));
      else
        this.tierByPhrase.set(
          phrase,
          new Map([
            [holder, entry % TIER_SPAN],
            [doc, tier],
          ]),
        );
    } else entry.set(doc, Math.max(entry.get(doc) ?? 0, tier));
  }

  /** The tier `doc` holds `phrase` at (0: none). */
  private tierOf(phrase: string, doc: number): number {
    const entry = this.tierByPhrase.get(phrase);
    if (entry === undefined) return 0;
    if (typeof entry === 'number') return Math.floor(entry / TIER_SPAN) === doc ? entry % TIER_SPAN : 0;
    return entry.get(doc) ?? 0;
  }

  private tierPhrasesOf(doc: number): string[] | null {
    let phrases = this.tierPhrases[doc];
    if (phrases === undefined) {
      const packed = this.packed as PackedNodeSearchIndex;
      phrases = [];
      for (let entry = packed.documentTierOffsets[doc]; entry < packed.documentTierOffsets[doc + 1]; entry += 1)
        phrases.push(packed.tierPhrases[packed.documentTierPhrases[entry]]);
      this.tierPhrases[doc] = phrases;
    }
    return phrases;
  }

  private removeTiers(doc: number): void {
    for (const phrase of this.tierPhrasesOf(doc) ?? []) {
      const entry = this.tierByPhrase.get(phrase);
      if (entry === undefined) continue;
      if (typeof entry === 'number') {
        if (Math.floor(entry / TIER_SPAN) === doc) this.tierByPhrase.delete(phrase);
        continue;
      }
      entry.delete(doc);
      if (entry.size === 0) this.tierByPhrase.delete(phrase);
    }
    this.tierPhrases[doc] = null;
  }
}

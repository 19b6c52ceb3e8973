import { performance } from 'node:perf_hooks';
import type { Locale } from '../config/app-config';
import { AppError } from '../errors/app-error';
import { GraphDataSource, NodeNeighborhood, ScoredNode } from '../graph/graph-data-source';
import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../graph/graph.types';
import { SearchIndexNotReadyError } from '../graph/search-index-not-ready.error';
import { NodeSearchIndex } from '../graph/search/node-search.index';
import { Logger } from '../observability/logger';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import {
  DEFAULT_GRAPH_RAG_OPTIONS,
  EXPANSION_SEED_COUNT,
  GraphRagOptions,
  ResolvedGraphRagOptions,
  VECTOR_MIN_SCORE,
} from './graph-rag-options';
import { askedFlowDirection } from './flow-direction';
import { askedSideNeighbors, placeAfterAnchor } from './asked-side-neighbors';
import { boostHitsLinkedToSeeds } from './linked-hits';
import { NamedSheet, NamedSheetFinder } from './named-sheet.finder';
import { summarizeNodeTypeConfig } from './node-type-config-summary';
import { SelectedNode, selectContextNodes } from './context-node.selector';
import { distancesFrom } from './graph-distance';
import { summarizeGraph } from './graph-summary';
import { toRelevantEdge, toRelevantNode } from './relevant-node.mapper';
import { fuseByScore } from './score-fusion';
import { buildContextMessage } from './toon-context.encoder';
import { TtlLruCache } from './ttl-lru.cache';
import { describeUpstreamError } from '../observability/upstream-error.masker';

export interface RetrieveOptions {
  /** Node keys pinned by the user: always in the context, first; unknown keys are skipped. */
  mentions?: string[];
  maxNodes?: number;
  maxDepth?: number;
  /** Characters of `process` / of `data` JSON kept per node, for this retrieval (a smaller context after a context_length refusal). */
  truncateProcess?: number;
  truncateData?: number;
}

/** A retrieval and the context message sent to the model for it (see retrieveWithMessage). */
export interface RetrievedContextMessage {
  context: GraphRAGContext;
  /** buildContextMessage(context, locale). */
  message: string;
}

interface CacheScope {
  workspace: string;
  graphKey: string;
}

/** One cached retrieval: the context, and its context message per locale once encoded (same key, same life). */
interface CachedRetrieval {
  context: GraphRAGContext;
  messages: Partial<Record<Locale, string>>;
}

const MAX_NODES_LIMIT = 200;
/** A named sheet searched on the spot while the graph's index is being built: at most this many nodes. */
const SHEET_SEARCH_MAX_NODES = 1_000;
const MAX_DEPTH_LIMIT = 3;

/**
 * GraphRAG: finds the nodes relevant to a question (BM25, plus vector search fused by normalised
 * score when an embedding provider is configured; in the one sheet the question names, when it
 * names one; the hits wired to the best ones lifted), expands their neighbourhood, and assembles a
 * compact, truncated GraphRAGContext. Results are cached per (workspace, graph, question, mentions,
 * options), with their TOON context message once encoded. Stateless apart from the cache: the
 * workspace comes with the data source of each call.
 */
export class GraphRagRetriever {
  private readonly options: ResolvedGraphRagOptions;
  private readonly cache: TtlLruCache<CachedRetrieval, CacheScope>;
  private readonly logger = new Logger('rag');
  private readonly sheetFinder = new NamedSheetFinder();

  constructor(options: GraphRagOptions = {}) {
    const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
    this.options = { ...DEFAULT_GRAPH_RAG_OPTIONS, ...defined } as ResolvedGraphRagOptions;
    this.cache = new TtlLruCache({
      ttlMs: this.options.cacheTTLMs,
      maxEntries: this.options.cacheMaxEntries,
      clock: this.options.clock,
    });
  }

  /** Live cached contexts. */
  get cacheSize(): number {
    return this.cache.size;
  }

  /**
   * Forgets cached contexts: all of them, or those of one graph (in every workspace, or only in
   * `workspace`). Call it whenever a graph changes.
   */
  clearCache(graphKey?: string, workspace?: string): void {
    if (graphKey === undefined && workspace === undefined) {
      this.cache.clear();
      return;
    }
    this.cache.deleteWhere(
      (scope) =>
        (graphKey === undefined || scope.graphKey === graphKey) &&
        (workspace === undefined || scope.workspace === workspace),
    );
  }

  /** Throws AppError not_found when the graph does not exist in the data source's workspace. */
  async retrieve(
    dataSource: GraphDataSource,
    graphKey: string,
    query: string,
    options: RetrieveOptions = {},
  ): Promise<GraphRAGContext> {
    return (await this.lookup(dataSource, graphKey, query, options)).context;
  }

  /**
   * retrieve() plus the context message the agent sends (buildContextMessage), encoded once per
   * cached retrieval and locale: a cache hit costs no TOON encoding (~0.3-0.5 ms per question).
   */
  async retrieveWithMessage(
    dataSource: GraphDataSource,
    graphKey: string,
    query: string,
    options: RetrieveOptions & { locale?: Locale } = {},
  ): Promise<RetrievedContextMessage> {
    const { entry, context } = await this.lookup(dataSource, graphKey, query, options);
    const locale = options.locale ?? 'en';
    // The message reads only the nodes and edges, never the per-call retrieval info.
    const message = (entry.messages[locale] ??= buildContextMessage(entry.context, locale));
    return { context, message };
  }

  /** The cache entry (new on a miss) and the caller's own copy of its context. */
  private async lookup(
    dataSource: GraphDataSource,
    graphKey: string,
    query: string,
    options: RetrieveOptions,
  ): Promise<{ entry: CachedRetrieval; context: GraphRAGContext }> {
    const started = performance.now();
    const maxNodes = clampInteger(options.maxNodes ?? this.options.maxNodes, 1, MAX_NODES_LIMIT);
    const maxDepth = clampInteger(options.maxDepth ?? this.options.maxDepth, 0, MAX_DEPTH_LIMIT);
    const mentions = [...new Set(options.mentions ?? [])];
    const truncation = {
      truncateProcess: Math.max(0, options.truncateProcess ?? this.options.truncateProcess),
      truncateData: Math.max(0, options.truncateData ?? this.options.truncateData),
    };
    const cacheKey = JSON.stringify([
      dataSource.workspace,
      graphKey,
      query,
      mentions,
      maxNodes,
      maxDepth,
      truncation.truncateProcess,
      truncation.truncateData,
    ]);

    const entry = this.cache.get(cacheKey);
    if (entry) {
      const cached = entry.context;
      const durationMs = elapsed(started);
      this.logger.debugEvent('rag_retrieve', {
        graphKey,
        query,
        nodeCount: cached.relevantNodes.length,
        cacheHit: true,
        durationMs,
      });
      this.options.observer?.retrieved({ searchMode: cached.retrieval.searchMode, cacheHit: true, durationMs });
      return { entry, context: { ...cached, retrieval: { ...cached.retrieval, cacheHit: true, durationMs } } };
    }

    const graph = await dataSource.getGraph(graphKey);
    if (!graph) throw AppError.notFound(`Graph "${graphKey}" not found`);

    const question = query.trim();
    // A question that names one sheet of a many-sheet graph (a workspace of workflows) is answered from that sheet.
    const named = question ? this.sheetFinder.find(graph.sheetsList ?? {}, question) : null;
    const text = named?.residualQuery.trim() || question;
    const searchDepth = Math.max(maxNodes * 2, 20);
    const [mentioned, lexicalSearch, vector] = await Promise.all([
      mentions.length > 0 ? dataSource.getNodesByKeys(graphKey, mentions) : Promise.resolve([]),
      text ? this.searchLexically(dataSource, graphKey, text, searchDepth, named) : Promise.resolve(READY_NOTHING),
      text ? this.embedQuery(text) : Promise.resolve(null),
    ]);
    const vectorSearch = vector
      ? await this.searchByVector(dataSource, graphKey, vector, searchDepth, named)
      : { hits: null, ready: true };
    const semantic = vectorSearch.hits;
    const lexical = lexicalSearch.hits;
    // The graph's index is still being built: answered from what was ready, and not cached.
    const indexing = !lexicalSearch.ready || !vectorSearch.ready;
    let hits = fuseByScore([
      { hits: lexical, weight: 1 },
      { hits: semantic ?? [], weight: this.options.vectorWeight },
    ]);

    let searchMode: GraphRAGContext['retrieval']['searchMode'] = semantic ? 'hybrid' : 'bm25';
    let selected: SelectedNode[];
    if (mentioned.length === 0 && hits.length === 0) {
      searchMode = 'fallback';
      selected = (await dataSource.getNodes(graphKey, named?.sheet, maxNodes))
        .slice(0, maxNodes)
        .map((node) => ({ node, origin: 'search' as const }));
    } else {
      const seeds = [...new Set([...mentioned.map((node) => node._key), ...hits.map((hit) => hit.node._key)])].slice(
        0,
        EXPANSION_SEED_COUNT,
      );
      const neighborhoods =
        maxDepth > 0
          ? await Promise.all(seeds.map((seed) => dataSource.getNeighborhood(graphKey, seed, maxDepth, 'any')))
          : [];
      const flow = askedFlowDirection(text);
      // Graph-aware ranking: the hits wired to the best ones (on the side the question asks about) gain a share of their score.
      hits = boostHitsLinkedToSeeds(hits, seeds, neighborhoods, this.options.linkedHitBoost, flow);
      selected = selectContextNodes({
        mentions: mentioned,
        hits,
        neighbors: rankNeighbors(seeds, neighborhoods).filter((node) => !seeds.includes(node._key)),
        maxNodes,
        // Rounded, not floored: a small context (3 nodes) still keeps one slot for the structure around its best hit.
        neighborSlots: Math.round(maxNodes * this.options.expansionShare),
      });
      const anchor = flow && namedNode(seeds, mentioned, lexical);
      if (anchor && maxDepth > 0) {
        const followers = askedSideNeighbors(anchor, neighborhoods[seeds.indexOf(anchor)], flow);
        selected = placeAfterAnchor(selected, anchor, followers, mentioned.length, maxNodes);
      }
    }

    const [edges, configs] = await Promise.all([
      this.edgesWithin(
        dataSource,
        graphKey,
        selected.map((entry) => entry.node._key),
      ),
      dataSource.getNodeConfigs(),
    ]);
    const context = this.assemble(graph, selected, edges, configs, truncation, {
      query,
      searchMode,
      cacheHit: false,
      durationMs: elapsed(started),
      ...(indexing ? { indexing: true as const } : {}),
    });
    const created: CachedRetrieval = { context, messages: {} };
    if (!indexing) this.cache.set(cacheKey, created, { workspace: dataSource.workspace, graphKey });
    this.logger.debugEvent('rag_retrieve', {
      graphKey,
      query,
      nodeCount: context.relevantNodes.length,
      edgeCount: context.relevantEdges.length,
      cacheHit: false,
      searchMode,
      durationMs: context.retrieval.durationMs,
      ...(indexing ? { indexing: true } : {}),
    });
    this.options.observer?.retrieved({ searchMode, cacheHit: false, durationMs: context.retrieval.durationMs });
    return { entry: created, context: { ...context, retrieval: { ...context.retrieval } } };
  }

  /**
   * BM25 hits (in the named sheet, when there is one). While the graph's index is being built, a
   * named sheet is searched on the spot (its nodes indexed for this question: BM25 statistics of the
   * sheet, not of the graph); without one there are no lexical hits (`ready` false).
   */
  private async searchLexically(
    dataSource: GraphDataSource,
    graphKey: string,
    text: string,
    maxResults: number,
    named: NamedSheet | null,
  ): Promise<SearchOutcome> {
    try {
      const hits = await dataSource.searchNodes(graphKey, text, maxResults, named ? { sheet: named.sheet } : undefined);
      return { hits, ready: true };
    } catch (error) {
      if (!(error instanceof SearchIndexNotReadyError)) throw error;
      this.logger.info('rag_search_index_not_ready', { graphKey, namedSheet: named !== null });
      if (!named) return { hits: [], ready: false };
      const nodes = await dataSource.getNodes(graphKey, named.sheet);
      if (nodes.length > SHEET_SEARCH_MAX_NODES) return { hits: [], ready: false };
      const byKey = new Map(nodes.map((node) => [node._key, node]));
      const hits = NodeSearchIndex.build(nodes, await dataSource.getNodeConfigs())
        .search(text, maxResults)
        .map((hit) => ({ node: byKey.get(hit.nodeKey) as GraphNode, score: hit.score }));
      return { hits, ready: false };
    }
  }

  /** Never throws: without a vector the question is answered with BM25 alone. */
  private async embedQuery(text: string): Promise<Float32Array | null> {
    const provider = this.options.embeddingProvider;
    if (!provider) return null;
    try {
      const vector = await provider.embedOne(text, AbortSignal.timeout(this.options.embeddingTimeoutMs));
      if (!vector || vector.length === 0) return null;
      this.logger.debugEvent('rag_embedding', { queryLength: text.length, dim: vector.length });
      return vector;
    } catch (error) {
      this.logger.warn('rag_embedding_failed', { model: provider.modelName, error: describeError(error) });
      return null;
    }
  }

  /** Never throws: `hits` null when the vector search failed (BM25 alone then), `ready` false when its index was being built. */
  private async searchByVector(
    dataSource: GraphDataSource,
    graphKey: string,
    vector: Float32Array,
    maxResults: number,
    named: NamedSheet | null,
  ): Promise<{ hits: ScoredNode[] | null; ready: boolean }> {
    const provider = this.options.embeddingProvider as NonNullable<ResolvedGraphRagOptions['embeddingProvider']>;
    const model = provider.modelName;
    // Each model has its own noise floor; the default 0.3 fits OpenAI models.
    const minScore = provider.minSimilarity ?? VECTOR_MIN_SCORE;
    try {
      const query = { vector, model, minScore };
      const hits = named
        ? await dataSource.searchNodesByVector(graphKey, query, maxResults, { sheet: named.sheet })
        : await dataSource.searchNodesByVector(graphKey, query, maxResults);
      return { hits, ready: true };
    } catch (error) {
      if (error instanceof SearchIndexNotReadyError) return { hits: null, ready: false };
      this.logger.warn('rag_vector_search_failed', { graphKey, model, error: describeError(error) });
      return { hits: null, ready: true };
    }
  }

  /** Every edge whose two ends are selected (each edge is the `out` edge of exactly one node). */
  private async edgesWithin(dataSource: GraphDataSource, graphKey: string, keys: string[]): Promise<GraphEdge[]> {
    const selected = new Set(keys);
    const outgoing = await Promise.all(keys.map((key) => dataSource.getEdgesOfNode(graphKey, key, 'out')));
    const edges = new Map<string, GraphEdge>();
    for (const edge of outgoing.flat()) {
      if (selected.has(edge.source) && selected.has(edge.target)) edges.set(edge._key, edge);
    }
    return [...edges.values()];
  }

  private assemble(
    graph: Graph,
    ranked: SelectedNode[],
    edges: GraphEdge[],
    configs: NodeTypeConfig[],
    limits: { truncateProcess: number; truncateData: number },
    retrieval: GraphRAGContext['retrieval'],
  ): GraphRAGContext {
    const configsByType = new Map(configs.map((config) => [config._key, config]));
    const usedTypes = [...new Set(ranked.map((entry) => entry.node.type))];
    return {
      graph: { ...summarizeGraph(graph), ...(graph.metadata ? { metadata: graph.metadata } : {}) },
      relevantNodes: ranked.map((entry) =>
        toRelevantNode(entry.node, graph, configsByType, limits, entry.origin, entry.score),
      ),
      relevantEdges: edges.map(toRelevantEdge),
      nodeTypeConfigs: usedTypes.flatMap((type) => {
        const config = configsByType.get(type);
        return config ? [summarizeNodeTypeConfig(config)] : [];
      }),
      retrieval,
    };
  }
}

/** A search's hits, and whether its index was ready (false: built meanwhile, the hits are what could be found without it). */
interface SearchOutcome {
  hits: ScoredNode[];
  ready: boolean;
}

const READY_NOTHING: SearchOutcome = { hits: [], ready: true };

/**
 * Neighbours of the seeds, nearest first: distance is recomputed over each neighbourhood's edges
 * (the port only promises BFS order), the minimum over seeds wins, ties keep the seeds' rank.
 */
function rankNeighbors(seeds: string[], neighborhoods: NodeNeighborhood[]): GraphNode[] {
  const best = new Map<string, { node: GraphNode; distance: number; seedIndex: number; order: number }>();
  neighborhoods.forEach((neighborhood, seedIndex) => {
    const distances = distancesFrom(seeds[seedIndex], neighborhood.edges);
    neighborhood.nodes.forEach((node, order) => {
      if (node._key === seeds[seedIndex]) return;
      const distance = distances.get(node._key) ?? Number.MAX_SAFE_INTEGER;
      const current = best.get(node._key);
      if (!current || distance < current.distance) best.set(node._key, { node, distance, seedIndex, order });
    });
  });
  return [...best.values()]
    .sort((a, b) => a.distance - b.distance || a.seedIndex - b.seedIndex || a.order - b.order)
    .map((entry) => entry.node);
}

/**
 * The node a flow question starts from: the first mention, else the best lexical hit (the words
 * name it) when it is one of the expansion seeds, else the first seed.
 */
function namedNode(seeds: readonly string[], mentioned: readonly GraphNode[], lexical: readonly ScoredNode[]): string {
  if (mentioned.length > 0) return mentioned[0]._key;
  const best = lexical[0]?.node._key;
  return best !== undefined && seeds.includes(best) ? best : seeds[0];
}

function clampInteger(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

function describeError(error: unknown): string {
  return describeUpstreamError(error);
}

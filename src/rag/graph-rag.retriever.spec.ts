import { InMemoryGraphDataSource } from '../../test/support/in-memory-graph-data-source';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { AppError } from '../errors/app-error';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { GraphDocument } from '../graph/graph.types';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import { GraphRagRetriever } from './graph-rag.retriever';
import { RetrievalEvent } from './retrieval.observer';

/** Maps words to axes of a 3-dimensional "meaning" space, so similarity is predictable. */
class KeywordEmbeddingProvider implements EmbeddingProvider {
  readonly modelName = 'keyword-test-model';
  readonly dimension = 3;
  readonly calls: string[] = [];

  async embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.all(texts.map((text) => this.embedOne(text)));
  }

  async embedOne(text: string): Promise<Float32Array> {
    this.calls.push(text);
    const lower = text.toLowerCase();
    return new Float32Array([
      /leaderboard|ranking|best/.test(lower) ? 1 : 0,
      /download|retrieve/.test(lower) ? 1 : 0,
      /page|screen/.test(lower) ? 1 : 0,
    ]);
  }
}

class FailingEmbeddingProvider extends KeywordEmbeddingProvider {
  override async embedOne(text: string): Promise<Float32Array> {
    this.calls.push(text);
    throw new Error('embedding endpoint unreachable');
  }
}

/** The demo graph with vectors of the keyword model on three nodes. */
function embeddedDemo(): GraphDocument {
  const document = structuredClone(nbaWorkflowDemo);
  const vectors: Record<string, number[]> = {
    'sort-stats': [1, 0, 0],
    'fetch-api': [0, 1, 0],
    'display-html': [0, 0, 1],
  };
  for (const node of document.nodes) {
    if (vectors[node._key])
      Object.assign(node, { embedding: vectors[node._key], embeddingModel: 'keyword-test-model' });
  }
  return document;
}

function demoSource(document: GraphDocument = nbaWorkflowDemo): InMemoryGraphDataSource {
  return new InMemoryGraphDataSource(DEMO_WORKSPACE, [document]);
}

/** The demo graph with 30 html notes `<prefix>-<n>` on sheet 1, each holding `process`: many nodes that match. */
function demoWithNotes(prefix: string, process: string): GraphDocument {
  const document = structuredClone(nbaWorkflowDemo);
  for (let index = 0; index < 30; index++) {
    document.nodes.push({
      _key: `${prefix}-${index}`,
      graphKey: DEMO_GRAPH_KEY,
      type: 'html',
      sheet: '1',
      posX: 0,
      posY: 0,
      process,
    });
  }
  return document;
}

const keysOf = (context: GraphRAGContext) => context.relevantNodes.map((node) => node._key);
const edgeKeysOf = (context: GraphRAGContext) => context.relevantEdges.map((edge) => edge._key).sort();

describe(GraphRagRetriever.name, () => {
  let logs: LogEntry[];
  beforeEach(() => {
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  describe('search and expansion', () => {
    it('finds the matching nodes and their neighbourhood, with the edges between them', async () => {
      const context = await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api NBA');
      expect(context.relevantNodes[0]).toMatchObject({ _key: 'fetch-api', origin: 'search' });
      expect(keysOf(context)).toEqual(expect.arrayContaining(['fetch-api', 'root', 'filter-active', 'error-handler']));
      expect(edgeKeysOf(context)).toEqual(
        expect.arrayContaining(['root-to-fetch-api', 'fetch-api-to-filter-active', 'fetch-api-to-error-handler']),
      );
      expect(context.retrieval).toMatchObject({ query: 'fetch api NBA', searchMode: 'bm25', cacheHit: false });
      expect(context.retrieval.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('ranks search hits best first, then neighbours by BFS distance', async () => {
      const context = await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'root');
      expect(context.relevantNodes.map((node) => [node._key, node.origin])).toEqual([
        ['root', 'search'],
        ['entry-form', 'neighbor'],
        ['fetch-api', 'neighbor'],
        ['filter-active', 'neighbor'],
        ['error-handler', 'neighbor'],
      ]);
      expect(context.relevantNodes[0].score).toBeGreaterThan(0);
      expect(context.relevantNodes[1].score).toBeUndefined();
    });

    it('expands only as deep as maxDepth', async () => {
      const retriever = new GraphRagRetriever();
      const shallow = await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'root', { maxDepth: 1 });
      expect(keysOf(shallow).sort()).toEqual(['entry-form', 'fetch-api', 'root']);
      const deep = await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'root', { maxDepth: 3 });
      expect(keysOf(deep)).toEqual(expect.arrayContaining(['display-html', 'filter-active', 'error-handler']));
      const constructed = await new GraphRagRetriever({ maxDepth: 1 }).retrieve(demoSource(), DEMO_GRAPH_KEY, 'root');
      expect(keysOf(constructed)).toHaveLength(3);
    });

    it('keeps at most maxNodes nodes and only the edges whose two ends are kept', async () => {
      const context = await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'root', { maxNodes: 2 });
      expect(keysOf(context)).toEqual(['root', 'entry-form']);
      expect(edgeKeysOf(context)).toEqual(['entry-form-to-root']);
      const small = await new GraphRagRetriever({ maxNodes: 1 }).retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api');
      expect(keysOf(small)).toEqual(['fetch-api']);
      expect(small.relevantEdges).toEqual([]);
    });

    it('keeps the default of 20 nodes and expands the 5 best hits, 2 hops in any direction (docs/retrieval.md)', async () => {
      const document = demoWithNotes('api-note', '// fetch api');
      const source = demoSource(document);
      const neighborhood = jest.spyOn(source, 'getNeighborhood');
      const context = await new GraphRagRetriever().retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
      expect(context.relevantNodes).toHaveLength(20);
      expect(neighborhood.mock.calls.map(([, , depth, direction]) => [depth, direction])).toEqual(
        Array(5).fill([2, 'any']),
      );
    });

    it('keeps a quarter of the context for the neighbourhood when many nodes match', async () => {
      const document = demoWithNotes('note', '// calls the api');
      const withExpansion = await new GraphRagRetriever().retrieve(demoSource(document), DEMO_GRAPH_KEY, 'fetch api', {
        maxNodes: 8,
      });
      expect(withExpansion.relevantNodes[0]._key).toBe('fetch-api');
      expect(withExpansion.relevantNodes.filter((node) => node.origin === 'neighbor')).toHaveLength(2);
      expect(withExpansion.relevantNodes.slice(-2).every((node) => node.origin === 'neighbor')).toBe(true);
      expect(withExpansion.relevantEdges.length).toBeGreaterThanOrEqual(2);

      const hitsOnly = await new GraphRagRetriever({ expansionShare: 0 }).retrieve(
        demoSource(document),
        DEMO_GRAPH_KEY,
        'fetch api',
        {
          maxNodes: 8,
        },
      );
      expect(hitsOnly.relevantNodes.every((node) => node.origin === 'search')).toBe(true);
    });

    it('ranks the nodes on the side a flow question asks about right after the node it names', async () => {
      const document = demoWithNotes('note', '// calls the api');
      const retriever = new GraphRagRetriever();
      // fetch-api → filter-active, fetch-api → error-handler; root → fetch-api.
      const after = await retriever.retrieve(demoSource(document), DEMO_GRAPH_KEY, 'What happens after fetch api?');
      expect(keysOf(after).slice(0, 3)).toEqual(['fetch-api', 'filter-active', 'error-handler']);
      // filter-active matches no word of the question: it is there as fetch-api's successor.
      expect(after.relevantNodes[1].origin).toBe('neighbor');
      const before = await retriever.retrieve(demoSource(document), DEMO_GRAPH_KEY, 'What feeds fetch api?');
      expect(keysOf(before).slice(0, 2)).toEqual(['fetch-api', 'root']);
      // Without a side, the neighbours wait after the 8 best hits.
      const plain = await retriever.retrieve(demoSource(document), DEMO_GRAPH_KEY, 'fetch api');
      expect(keysOf(plain).indexOf('filter-active')).toBeGreaterThanOrEqual(8);
    });

    it('expands from the top 5 seeds only', async () => {
      const source = demoSource();
      const neighborhood = jest.spyOn(source, 'getNeighborhood');
      await new GraphRagRetriever().retrieve(source, DEMO_GRAPH_KEY, 'players next incoming data');
      expect(neighborhood.mock.calls.length).toBeLessThanOrEqual(5);
      expect(neighborhood.mock.calls.every(([, , depth, direction]) => depth === 2 && direction === 'any')).toBe(true);
    });

    it('falls back to the graph nodes when nothing matches', async () => {
      const context = await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'quantum chromodynamics');
      expect(context.retrieval.searchMode).toBe('fallback');
      expect(context.relevantNodes).toHaveLength(nbaWorkflowDemo.nodes.length);
      expect(context.relevantEdges).toHaveLength(nbaWorkflowDemo.edges.length);
      const capped = await new GraphRagRetriever({ maxNodes: 4 }).retrieve(demoSource(), DEMO_GRAPH_KEY, 'zzz');
      expect(capped.relevantNodes).toHaveLength(4);
    });

    it('answers a question that names one sheet of a many-sheet graph from that sheet, its name taken out of the search', async () => {
      // Two copies of the demo on two sheets named after their workflow, as in a workspace that unions workflows.
      const union = structuredClone(nbaWorkflowDemo);
      union.graph.sheetsList = { '0': 'NBA players leaderboard', '1': 'Basketball scores archive' };
      const copy = structuredClone(nbaWorkflowDemo);
      union.nodes.push(...copy.nodes.map((node) => ({ ...node, _key: `b-${node._key}`, sheet: '1' })));
      union.edges.push(
        ...copy.edges.map((edge) => ({
          ...edge,
          _key: `b-${edge._key}`,
          sheet: '1',
          source: `b-${edge.source}`,
          target: `b-${edge.target}`,
        })),
      );
      const source = demoSource(union);
      const retriever = new GraphRagRetriever({ cacheTTLMs: 0 });

      const named = await retriever.retrieve(source, DEMO_GRAPH_KEY, '[Basketball scores archive] fetch api');
      expect(keysOf(named)[0]).toBe('b-fetch-api');
      expect(named.relevantNodes.every((node) => node.sheet === '1')).toBe(true);
      const unnamed = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
      expect(new Set(unnamed.relevantNodes.map((node) => node.sheet))).toEqual(new Set(['0', '1']));
      // Nothing matches in the named sheet: its own nodes, not the graph's first ones.
      const nothing = await retriever.retrieve(
        source,
        DEMO_GRAPH_KEY,
        'Basketball scores archive: quantum chromodynamics',
      );
      expect(nothing.retrieval.searchMode).toBe('fallback');
      expect(nothing.relevantNodes.every((node) => node.sheet === '1')).toBe(true);
    });

    it('throws not_found for a graph absent from the workspace', async () => {
      const retriever = new GraphRagRetriever();
      await expect(retriever.retrieve(demoSource(), 'missing-graph', 'x')).rejects.toMatchObject({ code: 'not_found' });
      const otherWorkspace = new InMemoryGraphDataSource('other', [nbaWorkflowDemo]);
      await expect(retriever.retrieve(otherWorkspace, DEMO_GRAPH_KEY, 'fetch')).rejects.toBeInstanceOf(AppError);
    });
  });

  describe('mentions', () => {
    it('puts mentioned nodes first and skips unknown ones', async () => {
      const context = await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api', {
        mentions: ['sort-stats', 'no-such-node', 'sort-stats'],
      });
      expect(context.relevantNodes[0]).toMatchObject({ _key: 'sort-stats', origin: 'mention' });
      expect(context.relevantNodes[1]).toMatchObject({ _key: 'fetch-api', origin: 'search' });
      expect(keysOf(context)).not.toContain('no-such-node');
      expect(keysOf(context).filter((key) => key === 'sort-stats')).toHaveLength(1);
    });

    it('expands around mentions even when the question matches nothing', async () => {
      const context = await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'zzz', {
        mentions: ['return'],
        maxDepth: 1,
      });
      expect(context.retrieval.searchMode).toBe('bm25');
      expect(keysOf(context)).toEqual(['return', 'display-html']);
    });
  });

  describe('assembly', () => {
    it('resolves sheet names, type display names and configs of the used types', async () => {
      const context = await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'sort players points');
      const sortStats = context.relevantNodes.find((node) => node._key === 'sort-stats');
      expect(sortStats).toMatchObject({
        sheet: '1',
        sheetName: 'data-processing',
        type: 'transform',
        typeName: 'Transform',
      });
      const fetchApi = (await new GraphRagRetriever().retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api'))
        .relevantNodes[0];
      expect(fetchApi).toMatchObject({ sheetName: 'main', typeName: 'API Call' });
      expect(fetchApi.handles.map((handle) => handle.side)).toEqual(['L', 'R']);
      expect(context.graph).toMatchObject({
        _key: DEMO_GRAPH_KEY,
        name: 'NBA stats workflow',
        sheets: { '0': 'main', '1': 'data-processing' },
      });
      const usedTypes = new Set(context.relevantNodes.map((node) => node.type));
      expect(context.nodeTypeConfigs.length).toBeGreaterThan(0);
      expect(context.nodeTypeConfigs.every((config) => usedTypes.has(config._key))).toBe(true);
      expect(context.nodeTypeConfigs.map((config) => config._key)).not.toContain('starter');
    });

    it('truncates process and data', async () => {
      const document = structuredClone(nbaWorkflowDemo);
      const node = document.nodes.find((candidate) => candidate._key === 'fetch-api');
      Object.assign(node as object, { process: `// fetch\n${'a'.repeat(2000)}`, data: { blob: 'b'.repeat(1000) } });
      const context = await new GraphRagRetriever().retrieve(demoSource(document), DEMO_GRAPH_KEY, 'fetch');
      const fetchApi = context.relevantNodes[0];
      expect(fetchApi.process).toHaveLength(503);
      expect(fetchApi.process.endsWith('...')).toBe(true);
      expect(fetchApi.dataSummary).toHaveLength(203);
      const custom = await new GraphRagRetriever({ truncateProcess: 10, truncateData: 5 }).retrieve(
        demoSource(document),
        DEMO_GRAPH_KEY,
        'fetch',
      );
      expect(custom.relevantNodes[0].process).toBe('// fetch\na...');
      expect(custom.relevantNodes[0].dataSummary).toBe('{"blo...');
    });
  });

  describe('embedding provider', () => {
    it('ranks a node that lexical search alone misses (hybrid fusion)', async () => {
      const source = demoSource(embeddedDemo());
      const lexicalOnly = await new GraphRagRetriever().retrieve(source, DEMO_GRAPH_KEY, 'leaderboard table');
      expect(lexicalOnly.retrieval.searchMode).toBe('bm25');
      expect(keysOf(lexicalOnly)).not.toContain('sort-stats');

      const provider = new KeywordEmbeddingProvider();
      const hybrid = await new GraphRagRetriever({ embeddingProvider: provider }).retrieve(
        source,
        DEMO_GRAPH_KEY,
        'leaderboard table',
      );
      expect(hybrid.retrieval.searchMode).toBe('hybrid');
      expect(hybrid.relevantNodes.find((node) => node._key === 'sort-stats')).toMatchObject({ origin: 'search' });
      expect(provider.calls).toEqual(['leaderboard table']);
    });

    it('fuses by normalised score: a node found by both searches rises above better lexical matches, not above a clear winner', async () => {
      // BM25 alone: display-html (3.8, "table"), sort-stats (1.4), filter-active (1.3), fetch-api (1.0);
      // the vector list: fetch-api alone ("retrieve"), worth 0.5 against BM25's best at 1.
      const provider = new KeywordEmbeddingProvider();
      const context = await new GraphRagRetriever({ embeddingProvider: provider, linkedHitBoost: 0 }).retrieve(
        demoSource(embeddedDemo()),
        DEMO_GRAPH_KEY,
        'retrieve players table',
      );
      expect(keysOf(context).slice(0, 4)).toEqual(['display-html', 'fetch-api', 'sort-stats', 'filter-active']);
      const scores = context.relevantNodes.slice(0, 2).map((node) => node.score);
      expect(scores[0]).toBeCloseTo(1);
      expect(scores[1]).toBeCloseTo(0.5 + 1.0421 / 3.7911, 3);
    });

    it('searches vectors of the provider model only, above the 0.3 threshold', async () => {
      const source = demoSource(embeddedDemo());
      const vectorSearch = jest.spyOn(source, 'searchNodesByVector');
      await new GraphRagRetriever({ embeddingProvider: new KeywordEmbeddingProvider() }).retrieve(
        source,
        DEMO_GRAPH_KEY,
        'best',
      );
      expect(vectorSearch).toHaveBeenCalledWith(
        DEMO_GRAPH_KEY,
        expect.objectContaining({ model: 'keyword-test-model', minScore: 0.3 }),
        expect.any(Number),
      );
    });

    it("uses the provider's own similarity floor when it has one", async () => {
      const source = demoSource(embeddedDemo());
      const vectorSearch = jest.spyOn(source, 'searchNodesByVector');
      const provider = Object.assign(new KeywordEmbeddingProvider(), { minSimilarity: 0.1 });
      await new GraphRagRetriever({ embeddingProvider: provider }).retrieve(source, DEMO_GRAPH_KEY, 'best');
      expect(vectorSearch.mock.calls[0][1]).toMatchObject({ minScore: 0.1 });
    });

    it('uses BM25 alone when the provider is null', async () => {
      const source = demoSource(embeddedDemo());
      const vectorSearch = jest.spyOn(source, 'searchNodesByVector');
      const context = await new GraphRagRetriever({ embeddingProvider: null }).retrieve(
        source,
        DEMO_GRAPH_KEY,
        'fetch',
      );
      expect(context.retrieval.searchMode).toBe('bm25');
      expect(vectorSearch).not.toHaveBeenCalled();
    });

    it('continues with BM25 when the embedding fails', async () => {
      const provider = new FailingEmbeddingProvider();
      const context = await new GraphRagRetriever({ embeddingProvider: provider }).retrieve(
        demoSource(),
        DEMO_GRAPH_KEY,
        'fetch api',
      );
      expect(provider.calls).toHaveLength(1);
      expect(context.retrieval.searchMode).toBe('bm25');
      expect(context.relevantNodes[0]._key).toBe('fetch-api');
      expect(logs).toEqual([expect.objectContaining({ level: 'warn', event: 'rag_embedding_failed' })]);
      expect(JSON.stringify(logs)).not.toContain('fetch api');
    });

    it('continues with BM25 when the vector search fails', async () => {
      const source = demoSource(embeddedDemo());
      jest.spyOn(source, 'searchNodesByVector').mockRejectedValue(new Error('store down'));
      const context = await new GraphRagRetriever({ embeddingProvider: new KeywordEmbeddingProvider() }).retrieve(
        source,
        DEMO_GRAPH_KEY,
        'fetch api',
      );
      expect(context.retrieval.searchMode).toBe('bm25');
      expect(context.relevantNodes[0]._key).toBe('fetch-api');
      expect(logs).toEqual([expect.objectContaining({ level: 'warn', event: 'rag_vector_search_failed' })]);
    });

    it('does not embed an empty query, and falls back to the graph nodes', async () => {
      const provider = new KeywordEmbeddingProvider();
      const context = await new GraphRagRetriever({ embeddingProvider: provider }).retrieve(
        demoSource(),
        DEMO_GRAPH_KEY,
        '   ',
      );
      expect(provider.calls).toEqual([]);
      expect(context.retrieval.searchMode).toBe('fallback');
    });

    it('ignores an empty vector', async () => {
      const provider = new KeywordEmbeddingProvider();
      jest.spyOn(provider, 'embedOne').mockResolvedValue(new Float32Array(0));
      const context = await new GraphRagRetriever({ embeddingProvider: provider }).retrieve(
        demoSource(),
        DEMO_GRAPH_KEY,
        'fetch',
      );
      expect(context.retrieval.searchMode).toBe('bm25');
    });
  });

  describe('cache', () => {
    function clockedRetriever(options: { cacheTTLMs?: number; embeddingProvider?: EmbeddingProvider } = {}) {
      const clock = { now: 0 };
      return { retriever: new GraphRagRetriever({ ...options, clock: () => clock.now }), clock };
    }

    it('answers a repeated question from the cache without touching the store or the embedder', async () => {
      const provider = new KeywordEmbeddingProvider();
      const { retriever } = clockedRetriever({ embeddingProvider: provider });
      const source = demoSource();
      const getGraph = jest.spyOn(source, 'getGraph');
      const first = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
      const second = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
      expect(first.retrieval.cacheHit).toBe(false);
      expect(second.retrieval.cacheHit).toBe(true);
      expect(second.relevantNodes).toEqual(first.relevantNodes);
      expect(getGraph).toHaveBeenCalledTimes(1);
      expect(provider.calls).toHaveLength(1);
      expect(retriever.cacheSize).toBe(1);
    });

    it('misses on another question, mentions, options or workspace', async () => {
      const { retriever } = clockedRetriever();
      const source = demoSource();
      await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
      const misses = [
        await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api NBA'),
        await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api', { mentions: ['return'] }),
        await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api', { maxNodes: 3 }),
        await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api', { maxDepth: 1 }),
      ];
      expect(misses.map((context) => context.retrieval.cacheHit)).toEqual([false, false, false, false]);
      const otherWorkspace = new InMemoryGraphDataSource('acme', [
        { ...structuredClone(nbaWorkflowDemo), graph: { ...nbaWorkflowDemo.graph, workspace: 'acme' } },
      ]);
      expect((await retriever.retrieve(otherWorkspace, DEMO_GRAPH_KEY, 'fetch api')).retrieval.cacheHit).toBe(false);
      expect(retriever.cacheSize).toBe(6);
    });

    it('expires entries after the TTL', async () => {
      const { retriever, clock } = clockedRetriever({ cacheTTLMs: 1_000 });
      await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api');
      clock.now = 999;
      expect((await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api')).retrieval.cacheHit).toBe(true);
      clock.now = 2_000;
      expect(retriever.cacheSize).toBe(0);
      expect((await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api')).retrieval.cacheHit).toBe(false);
    });

    it('expires after the default of 2 minutes', async () => {
      const { retriever, clock } = clockedRetriever();
      await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api');
      clock.now = 119_999;
      expect(retriever.cacheSize).toBe(1);
      clock.now = 120_000;
      expect(retriever.cacheSize).toBe(0);
    });

    it('clears everything, or one graph only', async () => {
      const second = structuredClone(nbaWorkflowDemo);
      second.graph._key = 'second-graph';
      second.nodes.forEach((node) => (node.graphKey = 'second-graph'));
      const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo, second]);
      const { retriever } = clockedRetriever();
      await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch');
      await retriever.retrieve(source, DEMO_GRAPH_KEY, 'filter');
      await retriever.retrieve(source, 'second-graph', 'fetch');
      expect(retriever.cacheSize).toBe(3);

      retriever.clearCache(DEMO_GRAPH_KEY);
      expect(retriever.cacheSize).toBe(1);
      expect((await retriever.retrieve(source, 'second-graph', 'fetch')).retrieval.cacheHit).toBe(true);
      expect((await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch')).retrieval.cacheHit).toBe(false);

      retriever.clearCache(DEMO_GRAPH_KEY, 'another-workspace');
      expect(retriever.cacheSize).toBe(2);
      retriever.clearCache();
      expect(retriever.cacheSize).toBe(0);
    });

    it('caches nothing when the TTL is 0', async () => {
      const { retriever } = clockedRetriever({ cacheTTLMs: 0 });
      const source = demoSource();
      const getGraph = jest.spyOn(source, 'getGraph');
      await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
      const again = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
      expect(again.retrieval.cacheHit).toBe(false);
      expect(getGraph).toHaveBeenCalledTimes(2);
      expect(retriever.cacheSize).toBe(0);
    });

    it('does not let a caller corrupt the cached retrieval info', async () => {
      const { retriever } = clockedRetriever();
      const first = await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api');
      first.retrieval.searchMode = 'fallback';
      const second = await retriever.retrieve(demoSource(), DEMO_GRAPH_KEY, 'fetch api');
      expect(second.retrieval.searchMode).toBe('bm25');
    });
  });

  describe('observer', () => {
    it('reports each retrieval with its search mode, cache result and duration; nothing for a failed one', async () => {
      const events: RetrievalEvent[] = [];
      const retriever = new GraphRagRetriever({
        embeddingProvider: new KeywordEmbeddingProvider(),
        observer: { retrieved: (event) => events.push(event) },
      });
      const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [embeddedDemo()]);
      const miss = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'leaderboard ranking');
      await retriever.retrieve(source, DEMO_GRAPH_KEY, 'leaderboard ranking');
      await retriever.retrieve(source, DEMO_GRAPH_KEY, '');
      await expect(retriever.retrieve(source, 'no-such-graph', 'anything')).rejects.toBeInstanceOf(AppError);
      expect(events).toEqual([
        { searchMode: 'hybrid', cacheHit: false, durationMs: miss.retrieval.durationMs },
        { searchMode: 'hybrid', cacheHit: true, durationMs: expect.any(Number) },
        { searchMode: 'fallback', cacheHit: false, durationMs: expect.any(Number) },
      ]);
    });
  });
});

import { encode } from '@toon-format/toon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InMemoryGraphDataSource } from '../../test/support/in-memory-graph-data-source';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { LiveOverlayRegistry } from '../graph/overlay/live-overlay.registry';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../observability/logger';
import { GraphRagRetriever } from './graph-rag.retriever';
import { RetrievalCacheInvalidator } from './retrieval-cache.invalidator';
import { buildContextMessage } from './toon-context.encoder';

// Counts TOON encodings (two per context message: nodes and edges) without changing them.
jest.mock('@toon-format/toon', () => {
  const actual = jest.requireActual<typeof import('@toon-format/toon')>('@toon-format/toon');
  return { ...actual, encode: jest.fn(actual.encode) };
});
const encodings = encode as jest.MockedFunction<typeof encode>;

describe(`${GraphRagRetriever.name} context message`, () => {
  beforeEach(() => encodings.mockClear());

  it('is the context message of the retrieved context, in the locale asked for', async () => {
    const retriever = new GraphRagRetriever();
    const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
    const english = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
    const french = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api', { locale: 'fr' });
    expect(english.context.retrieval.cacheHit).toBe(false);
    expect(english.message).toBe(buildContextMessage(english.context, 'en'));
    expect(french.context.retrieval.cacheHit).toBe(true);
    expect(french.message).toBe(buildContextMessage(french.context, 'fr'));
    expect(french.message).not.toBe(english.message);
    expect(english.context.relevantNodes).toEqual(
      (await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api')).relevantNodes,
    );
  });

  it('is encoded once per cached retrieval and locale, again after the cache was cleared', async () => {
    const retriever = new GraphRagRetriever();
    const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
    const first = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
    const perMessage = encodings.mock.calls.length;
    expect(perMessage).toBeGreaterThan(0);

    const hit = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
    expect(hit.context.retrieval.cacheHit).toBe(true);
    expect(hit.message).toBe(first.message);
    expect(encodings).toHaveBeenCalledTimes(perMessage);

    await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api', { locale: 'fr' });
    await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'filter players');
    expect(encodings).toHaveBeenCalledTimes(3 * perMessage);

    retriever.clearCache(DEMO_GRAPH_KEY);
    const again = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
    expect(again.context.retrieval.cacheHit).toBe(false);
    expect(again.message).toBe(first.message);
    expect(encodings).toHaveBeenCalledTimes(4 * perMessage);
  });

  it('is encoded every time when the cache is off', async () => {
    const retriever = new GraphRagRetriever({ cacheTTLMs: 0 });
    const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
    const first = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
    const perMessage = encodings.mock.calls.length;
    const second = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
    expect(second.message).toBe(first.message);
    expect(encodings).toHaveBeenCalledTimes(2 * perMessage);
  });

  describe('when the graph changes (embedded store, live overlay and change notifier as in the service)', () => {
    let dataDir: string;
    let store: SqliteGraphStore;

    beforeEach(async () => {
      configureLogging({ level: 'error' });
      dataDir = mkdtempSync(path.join(tmpdir(), 'context-message-'));
      store = new SqliteGraphStore(openSqliteDatabase(dataDir));
      await store.importGraph(DEMO_WORKSPACE, nbaWorkflowDemo);
    });

    afterEach(async () => {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('follows a node change written through the data source', async () => {
      const notifier = new GraphChangeNotifier();
      const overlays = new LiveOverlayRegistry();
      const source = new GraphDataSourceFactory(store, overlays, notifier).forWorkspace(DEMO_WORKSPACE);
      const retriever = new GraphRagRetriever();
      const invalidator = new RetrievalCacheInvalidator(retriever, notifier);
      try {
        const before = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
        expect(before.message).not.toContain('savedMarker');

        const node = (await source.getNodeByKey(DEMO_GRAPH_KEY, 'fetch-api'))!;
        await source.updateNode(DEMO_GRAPH_KEY, {
          ...node,
          process: 'const savedMarker = await fetch(url); return savedMarker;',
        });
        const saved = await retriever.retrieveWithMessage(source, DEMO_GRAPH_KEY, 'fetch api');
        expect(saved.context.retrieval.cacheHit).toBe(false);
        expect(saved.message).toContain('savedMarker');
        expect(saved.message).toBe(buildContextMessage(saved.context));
      } finally {
        invalidator.onModuleDestroy();
      }
    });
  });
});

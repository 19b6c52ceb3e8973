import { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import pLimit from 'p-limit';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { GraphNodeEmbedder } from '../embeddings/graph-node.embedder';
import { LocalHashEmbeddingProvider } from '../embeddings/local-hash-embedding.provider';
import { GraphDocument, GraphNode } from '../graph/graph.types';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { resetLogSink, setLogSink } from '../observability/logger';
import { GraphRagRetriever } from './graph-rag.retriever';

const WS = 'acme';
const GRAPH = 'newsletter';
const node = (key: string, type: string, data: Record<string, unknown>, process?: string): GraphNode => ({
  _key: key,
  graphKey: GRAPH,
  type,
  sheet: '0',
  posX: 0,
  posY: 0,
  data,
  ...(process ? { process } : {}),
});

const document: GraphDocument = {
  graph: { _key: GRAPH, workspace: WS, name: 'Newsletter', sheetsList: { '0': 'main' } },
  nodes: [
    node('schedule', 'starter', { cron: '0 8 * * 1', label: 'every Monday morning' }),
    node('load-subscribers', 'database', { table: 'subscribers', where: 'active = true' }),
    node(
      'render-digest',
      'transform',
      { template: 'weekly digest of articles' },
      'next(0, renderDigest(incoming[0].data.articles));',
    ),
    node(
      'send-notifications',
      'messaging',
      { channel: 'push', title: 'Your weekly digest' },
      'await push.sendNotifications(incoming[0].data.subscribers);',
    ),
    node('archive-run', 'storage', { bucket: 'newsletter-runs' }),
  ],
  edges: [],
  nodeConfigs: [],
};

describe(`${GraphRagRetriever.name} (hybrid, embedded store, local embeddings)`, () => {
  let dataDir: string;
  let db: Database;
  let store: SqliteGraphStore;
  const provider = new LocalHashEmbeddingProvider();

  beforeAll(async () => {
    setLogSink(() => undefined);
    dataDir = mkdtempSync(path.join(tmpdir(), 'hybrid-retrieval-'));
    db = openSqliteDatabase(dataDir);
    store = new SqliteGraphStore(db);
    await store.importGraph(WS, document);
    const report = await new GraphNodeEmbedder(store, provider, { batchSize: 16, limiter: pLimit(1) }).embedGraph(
      WS,
      GRAPH,
      'all',
    );
    expect(report.embedded).toBe(document.nodes.length);
  });
  afterAll(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
    resetLogSink();
  });

  it('finds through vectors a node that BM25 alone misses (misspelt words)', async () => {
    const question = 'notifcations to subscrbers';
    const lexicalOnly = await new GraphRagRetriever({ cacheTTLMs: 0, embeddingProvider: null }).retrieve(
      store.forWorkspace(WS),
      GRAPH,
      question,
      { maxDepth: 0 },
    );
    const hybrid = await new GraphRagRetriever({ cacheTTLMs: 0, embeddingProvider: provider }).retrieve(
      store.forWorkspace(WS),
      GRAPH,
      question,
      { maxDepth: 0 },
    );

    // BM25 has no token in common with any node: it falls back to the first nodes of the graph.
    expect(lexicalOnly.retrieval.searchMode).toBe('fallback');
    expect(await store.forWorkspace(WS).searchNodes(GRAPH, question, 10)).toEqual([]);
    expect(hybrid.retrieval.searchMode).toBe('hybrid');
    // Only the node whose words the typos are close to is above the local model's noise floor.
    expect(hybrid.relevantNodes.map((found) => [found._key, found.origin])).toEqual([['send-notifications', 'search']]);
  });

  it('keeps BM25 hits first when both rankings agree', async () => {
    const hybrid = await new GraphRagRetriever({ cacheTTLMs: 0, embeddingProvider: provider }).retrieve(
      store.forWorkspace(WS),
      GRAPH,
      'load the active subscribers',
      { maxDepth: 0 },
    );
    expect(hybrid.retrieval.searchMode).toBe('hybrid');
    expect(hybrid.relevantNodes[0]._key).toBe('load-subscribers');
  });
});

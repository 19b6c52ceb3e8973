import { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import pLimit from 'p-limit';
import { ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { GraphNode } from '../graph/graph.types';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { LlmAbortError } from '../providers/llm-abort.error';
import { EmbeddingProvider } from './embedding-provider';
import { truncateToTokenLimit } from './embedding-input.truncator';
import { GraphNodeEmbedder } from './graph-node.embedder';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';
import { OpenAiEmbeddingProvider } from './openai-embedding.provider';

const WS = 'default';
const DEMO = nbaWorkflowDemo.graph._key;
/** The demo nodes that have an embedding text (every one of them: each has a type). */
const DEMO_NODE_COUNT = nbaWorkflowDemo.nodes.length;
const demoNode = (key: string): GraphNode =>
  structuredClone(nbaWorkflowDemo.nodes.find((node) => node._key === key) as GraphNode);

describe(GraphNodeEmbedder.name, () => {
  let dataDir: string;
  let db: Database;
  let store: SqliteGraphStore;
  const logs: LogEntry[] = [];

  beforeAll(() => {
    setLogSink((entry) => logs.push(entry));
    // Loads the cl100k ranks once (the OpenAI adapter cuts inputs to the model's limit).
    truncateToTokenLimit('warm up', 10);
  }, 120_000);
  afterAll(() => resetLogSink());

  beforeEach(async () => {
    logs.length = 0;
    dataDir = mkdtempSync(path.join(tmpdir(), 'graph-node-embedder-'));
    db = openSqliteDatabase(dataDir);
    store = new SqliteGraphStore(db);
    await store.importGraph(WS, structuredClone(nbaWorkflowDemo));
  });

  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const embedderWith = (provider: EmbeddingProvider, batchSize = 4, concurrency = 2) =>
    new GraphNodeEmbedder(store, provider, {
      batchSize,
      limiter: pLimit(concurrency),
      backoff: { baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 10, random: () => 0 },
    });
  const states = async () => new Map((await store.getEmbeddingStates(WS, DEMO)).map((state) => [state.nodeKey, state]));

  it('embeds every node of a new graph, stores model and text hash, and skips them all the second time', async () => {
    const local = new LocalHashEmbeddingProvider();
    const embedder = embedderWith(local);
    const first = await embedder.embedGraph(WS, DEMO, 'all');
    expect(first).toEqual({
      processed: DEMO_NODE_COUNT,
      embedded: DEMO_NODE_COUNT,
      skippedEmpty: 0,
      skippedUnchanged: 0,
      failed: 0,
      upstreamCalls: 3,
    });
    for (const state of (await states()).values())
      expect(state).toMatchObject({ model: local.modelName, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const hits = await store
      .forWorkspace(WS)
      .searchNodesByVector(
        DEMO,
        { vector: await local.embedOne('fetch players from the NBA stats API'), model: local.modelName, minScore: 0.1 },
        3,
      );
    expect(hits[0].node._key).toBe('fetch-api');

    const second = await embedder.embedGraph(WS, DEMO, 'all');
    expect(second).toMatchObject({
      processed: DEMO_NODE_COUNT,
      embedded: 0,
      skippedUnchanged: DEMO_NODE_COUNT,
      upstreamCalls: 0,
    });
    const batchLogs = logs.filter((entry) => entry.event === 'embedding_batch');
    expect(batchLogs).toHaveLength(3);
    expect(JSON.stringify(batchLogs)).not.toContain('NBA');
  });

  it('re-embeds a node whose content changed, not one that only moved, and replaces vectors of another model', async () => {
    const local = new LocalHashEmbeddingProvider();
    await embedderWith(local).embedGraph(WS, DEMO, 'all');
    const before = await states();
    const source = store.forWorkspace(WS);
    await source.updateNode(DEMO, { ...demoNode('sort-stats'), posX: 9_999, size: { width: 1, height: 1 } });
    await source.updateNode(DEMO, { ...demoNode('filter-active'), data: { minGames: 40 } });

    const report = await embedderWith(local).embedGraph(WS, DEMO, ['sort-stats', 'filter-active', 'created-later']);
    expect(report).toMatchObject({ processed: 2, embedded: 1, skippedUnchanged: 1, failed: 0 });
    const after = await states();
    expect(after.get('sort-stats')).toEqual(before.get('sort-stats'));
    expect(after.get('filter-active')?.hash).not.toEqual(before.get('filter-active')?.hash);

    const other = new LocalHashEmbeddingProvider({ dimension: 64 });
    const switched = await embedderWith(other).embedGraph(WS, DEMO, 'all');
    expect(switched).toMatchObject({ embedded: DEMO_NODE_COUNT, skippedUnchanged: 0 });
    expect([...(await states()).values()].every((state) => state.model === other.modelName)).toBe(true);
  });

  it('embeds everything again with force', async () => {
    const local = new LocalHashEmbeddingProvider();
    await embedderWith(local).embedGraph(WS, DEMO, 'all');
    expect(await embedderWith(local).embedGraph(WS, DEMO, 'all', { force: true })).toMatchObject({
      embedded: DEMO_NODE_COUNT,
      skippedUnchanged: 0,
    });
  });

  describe('concurrency', () => {
    /** Holds every call until it is released or aborted, counting the calls in flight. */
    class HeldProvider implements EmbeddingProvider {
      readonly modelName = 'held';
      readonly dimension = 4;
      inFlight = 0;
      mostInFlight = 0;
      private readonly held: Array<() => void> = [];

      embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
        this.inFlight += 1;
        this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
        return new Promise((resolve, reject) => {
          const done = () => (this.inFlight -= 1);
          this.held.push(() => (done(), resolve(texts.map(() => Float32Array.of(1, 0, 0, 0)))));
          signal?.addEventListener('abort', () => (done(), reject(new LlmAbortError())), { once: true });
        });
      }

      embedOne(text: string, signal?: AbortSignal): Promise<Float32Array> {
        return this.embed([text], signal).then(([vector]) => vector);
      }

      releaseAll(): void {
        this.held.splice(0).forEach((release) => release());
      }
    }

    const settle = async (until: () => boolean) => {
      while (!until()) await new Promise((resolve) => setImmediate(resolve));
    };

    it('runs at most `concurrency` batches at once', async () => {
      const held = new HeldProvider();
      const run = embedderWith(held, 2, 2).embedGraph(WS, DEMO, 'all');
      const releaser = setInterval(() => held.releaseAll(), 5);
      try {
        expect(await run).toMatchObject({
          processed: DEMO_NODE_COUNT,
          embedded: DEMO_NODE_COUNT,
          failed: 0,
          upstreamCalls: Math.ceil(DEMO_NODE_COUNT / 2),
        });
      } finally {
        clearInterval(releaser);
      }
      expect(held.mostInFlight).toBe(2);
    });

    it('counts the batches still waiting for a slot as failed when the run is stopped', async () => {
      const held = new HeldProvider();
      const controller = new AbortController();
      const run = embedderWith(held, 2, 2).embedGraph(WS, DEMO, 'all', { signal: controller.signal });
      await settle(() => held.inFlight === 2);
      controller.abort();
      // Two batches were running, a third waited for a slot; the nodes after it were never read.
      expect(await run).toEqual({
        processed: 6,
        embedded: 0,
        skippedEmpty: 0,
        skippedUnchanged: 0,
        failed: 6,
        upstreamCalls: 2,
      });
    });
  });

  it('returns an empty report for a graph that does not exist in the workspace', async () => {
    expect(await embedderWith(new LocalHashEmbeddingProvider()).embedGraph('globex', DEMO, 'all')).toMatchObject({
      processed: 0,
      embedded: 0,
    });
  });

  describe('against the scripted /v1/embeddings', () => {
    let server: ScriptedLlmServer;
    beforeAll(async () => {
      server = await ScriptedLlmServer.start({ embeddingDimension: 8 });
    });
    afterAll(() => server.close());
    beforeEach(() => server.reset());

    const remote = () =>
      new OpenAiEmbeddingProvider({
        model: 'scripted-embedding',
        apiKey: 'sk-test',
        baseURL: server.openAiBaseUrl,
        providerName: 'openai-compatible',
        maxRetries: 0,
        batchSize: 3,
      });

    it('keeps embedding the other batches when the upstream fails one batch, and the failed nodes get a vector next run', async () => {
      // Batches of 3 one after the other; the second fails for good (a 500 survives the retries).
      const failing = { error: { status: 500, message: 'upstream exploded' } };
      server.enqueueEmbeddings({}, failing, failing, failing);
      const report = await embedderWith(remote(), 3, 1).embedGraph(WS, DEMO, 'all');
      expect(report).toEqual({
        processed: DEMO_NODE_COUNT,
        embedded: DEMO_NODE_COUNT - 3,
        skippedEmpty: 0,
        skippedUnchanged: 0,
        failed: 3,
        upstreamCalls: 5,
      });
      expect([...(await states()).values()].filter((state) => state.model === 'scripted-embedding')).toHaveLength(
        DEMO_NODE_COUNT - 3,
      );

      const retry = await embedderWith(remote(), 3, 1).embedGraph(WS, DEMO, 'all');
      expect(retry).toMatchObject({ embedded: 3, skippedUnchanged: DEMO_NODE_COUNT - 3, failed: 0 });
    });

    it('isolates the one input the upstream refuses (400) and embeds the rest of its batch', async () => {
      server.enqueueEmbeddings(
        { error: { status: 400, message: 'bad input' } },
        {},
        { error: { status: 400, message: 'bad input' } },
      );
      const report = await embedderWith(remote(), 3, 1).embedGraph(WS, DEMO, ['entry-form', 'root', 'fetch-api']);
      // [a b c] refused → [a b] ok, [c] refused → only fetch-api is left without a vector.
      expect(report).toMatchObject({ processed: 3, embedded: 2, failed: 1 });
      expect((await states()).get('fetch-api')).toMatchObject({ model: null });
    });
  });
});

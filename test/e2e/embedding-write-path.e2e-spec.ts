import request from 'supertest';
import { EmbeddingProvider } from '../../src/embeddings/embedding-provider';
import { EMBEDDING_PROVIDER } from '../../src/embeddings/embedding-provider.token';
import { LocalWordsEmbeddingProvider } from '../../src/embeddings/local-words-embedding.provider';
import { NodeEmbeddingQueue } from '../../src/embeddings/node-embedding.queue';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphStore, StoredEmbeddingState } from '../../src/graph/graph-store';
import { GRAPH_STORE } from '../../src/graph/graph-store.token';
import { GraphDocument, GraphNode } from '../../src/graph/graph.types';
import { TestApp, startTestApp } from '../support/test-app';

const WS = 'default';
const DEMO = nbaWorkflowDemo.graph._key;
const LOCAL_MODEL = LocalWordsEmbeddingProvider.MODEL_NAME;
const demoNode = (key: string): GraphNode =>
  structuredClone(nbaWorkflowDemo.nodes.find((node) => node._key === key) as GraphNode);

describe('Embedding write path (default local provider, no key, no network)', () => {
  let app: TestApp;
  let store: GraphStore;
  let queue: NodeEmbeddingQueue;

  beforeAll(async () => {
    app = await startTestApp();
    store = app.app.get<GraphStore>(GRAPH_STORE);
    queue = app.app.get(NodeEmbeddingQueue);
  });
  afterAll(() => app.close());

  const states = async (graphKey = DEMO) =>
    new Map((await store.getEmbeddingStates(WS, graphKey)).map((state) => [state.nodeKey, state]));
  const changes = (body: object) => request(app.url).post(`/api/graphs/${DEMO}/changes`).send(body).expect(202);

  it('embeds the demo graph seeded at first start, so retrieval is hybrid out of the box', async () => {
    await queue.whenIdle();
    const stored = await states();
    expect(stored.size).toBe(nbaWorkflowDemo.nodes.length);
    for (const state of stored.values()) expect(state.model).toBe(LOCAL_MODEL);
    const response = await request(app.url)
      .post('/api/rag/context')
      .send({ graphKey: DEMO, query: 'which players are kept?' })
      .expect(200);
    expect(response.body.context.retrieval.searchMode).toBe('hybrid');
  });

  it('embeds saved nodes in the background: created and changed ones, never a node that only moved', async () => {
    await queue.whenIdle();
    const before = await states();
    const created: GraphNode = {
      _key: 'injury-report',
      graphKey: DEMO,
      type: 'api-call',
      sheet: '0',
      posX: 0,
      posY: 0,
      data: { url: 'https://injuries.example' },
    };
    const changed = { ...demoNode('filter-active'), data: { minGames: 50 } };
    const moved = { ...demoNode('sort-stats'), posX: 4_242 };

    await changes({ upsertNodes: [created, changed, moved], saved: false });
    await queue.whenIdle();
    expect((await states()).has('injury-report')).toBe(false);

    const embed = jest.spyOn(app.app.get<EmbeddingProvider>(EMBEDDING_PROVIDER), 'embed');
    try {
      const answer = await changes({ upsertNodes: [created, changed, moved], saved: true });
      expect(answer.body.embeddingCandidates).toBe(2);
      await queue.whenIdle();
      // Only the created and the changed node were embedded.
      expect(embed.mock.calls.map(([texts]) => texts.length)).toEqual([2]);
    } finally {
      embed.mockRestore();
    }
    const after = await states();
    expect(after.get('injury-report')).toMatchObject({ model: LOCAL_MODEL });
    expect(after.get('filter-active')?.hash).not.toBe(before.get('filter-active')?.hash);
    expect(after.get('filter-active')?.model).toBe(LOCAL_MODEL);
    expect(after.get('sort-stats')).toEqual(before.get('sort-stats'));
  });

  it('embeds an imported graph, keeping the vectors of nodes whose content did not change on re-import', async () => {
    const document: GraphDocument = {
      graph: { _key: 'tiny', workspace: WS, name: 'Tiny', sheetsList: { '0': 'main' } },
      nodes: [
        {
          _key: 'a',
          graphKey: 'tiny',
          type: 'starter',
          sheet: '0',
          posX: 0,
          posY: 0,
          data: { label: 'start the nightly export' },
        },
        { _key: 'b', graphKey: 'tiny', type: 'return', sheet: '0', posX: 100, posY: 0, process: 'next(0, incoming);' },
      ],
      edges: [],
      nodeConfigs: [],
    };
    await request(app.url).put('/api/graphs/tiny').send(document).expect(200);
    await queue.whenIdle();
    const first = await states('tiny');
    expect([...first.values()].map((state: StoredEmbeddingState) => state.model)).toEqual([LOCAL_MODEL, LOCAL_MODEL]);

    const moved = {
      ...document,
      nodes: [
        { ...document.nodes[0], posX: 50 },
        { ...document.nodes[1], process: 'next(0, []);' },
      ],
    };
    await request(app.url).put('/api/graphs/tiny').send(moved).expect(200);
    await queue.whenIdle();
    const second = await states('tiny');
    expect(second.get('a')).toEqual(first.get('a'));
    expect(second.get('b')?.hash).not.toBe(first.get('b')?.hash);
  });
});

describe('Embedding write path with EMBEDDING_PROVIDER=none', () => {
  it('computes no vector at all', async () => {
    const app = await startTestApp({ EMBEDDING_PROVIDER: 'none' });
    try {
      expect(app.app.get(NodeEmbeddingQueue, { strict: false })).toBeNull();
      const stored = await app.app.get<GraphStore>(GRAPH_STORE).getEmbeddingStates(WS, DEMO);
      expect(stored.every((state) => state.model === null)).toBe(true);
      const response = await request(app.url)
        .post('/api/rag/context')
        .send({ graphKey: DEMO, query: 'players' })
        .expect(200);
      expect(response.body.context.retrieval.searchMode).toBe('bm25');
    } finally {
      await app.close();
    }
  });
});

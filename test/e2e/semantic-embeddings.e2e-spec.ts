import request from 'supertest';
import { NodeEmbeddingQueue } from '../../src/embeddings/node-embedding.queue';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphStore } from '../../src/graph/graph-store';
import { GRAPH_STORE } from '../../src/graph/graph-store.token';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const DEMO = nbaWorkflowDemo.graph._key;

/**
 * A semantic embedding model is configuration only (docs/embeddings.md): Ollama by EMBEDDING_PROVIDER=ollama
 * (its defaults, or its address and model), any other OpenAI-compatible server by its base URL and model.
 * The real OpenAI SDK talks to a local server that speaks the /v1/embeddings wire format.
 */
describe.each([
  {
    name: 'Ollama',
    env: (server: ScriptedLlmServer) => ({ EMBEDDING_PROVIDER: 'ollama', EMBEDDING_BASE_URL: server.url }),
    model: 'nomic-embed-text',
  },
  {
    name: 'an OpenAI-compatible server',
    env: (server: ScriptedLlmServer) => ({
      EMBEDDING_PROVIDER: 'openai-compatible',
      EMBEDDING_BASE_URL: server.openAiBaseUrl,
      EMBEDDING_MODEL: 'bge-m3',
    }),
    model: 'bge-m3',
  },
])('Semantic embeddings through $name', ({ env, model }) => {
  let server: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start({ embeddingDimension: 8 });
    app = await startTestApp(env(server));
    await app.app.get(NodeEmbeddingQueue).whenIdle();
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('embeds the graph with the configured model and answers POST /api/rag/context in hybrid mode', async () => {
    const embeddingCalls = () => server.requests.filter((entry) => entry.endpoint === 'openai.embeddings');
    const documentCalls = embeddingCalls();
    expect(documentCalls.length).toBeGreaterThan(0);
    expect(documentCalls.every((entry) => entry.path === '/v1/embeddings' && entry.body.model === model)).toBe(true);
    const states = await app.app.get<GraphStore>(GRAPH_STORE).getEmbeddingStates('default', DEMO);
    expect(states).toHaveLength(nbaWorkflowDemo.nodes.length);
    expect(states.every((state) => state.model === model)).toBe(true);

    const response = await request(app.url)
      .post('/api/rag/context')
      .send({ graphKey: DEMO, query: 'which players are ranked?' })
      .expect(200);
    expect(response.body.context.retrieval.searchMode).toBe('hybrid');
    const queryCall = embeddingCalls().at(-1);
    expect(queryCall?.body).toMatchObject({ model, input: ['which players are ranked?'] });
  });
});

import jwt from 'jsonwebtoken';
import request from 'supertest';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
const SECRET = 'memory-provider-e2e-secret-of-enough-length';
const as = (sub: string, role: string) => ({
  authorization: `Bearer ${jwt.sign({ sub, workspace: 'default', role }, SECRET, { expiresIn: 600 })}`,
});
const admin = as('ada', 'admin');
const alice = as('alice', 'editor');
const MODEL_SUMMARY = 'The user reviewed fetch-api with the workspace model.';

const isSummaryCall = (recorded: RecordedRequest) =>
  JSON.stringify(recorded.body?.tools ?? []).includes('record_summary');

function scripted(recorded: RecordedRequest): ScriptedTurn {
  if (isSummaryCall(recorded)) {
    return {
      toolCalls: [
        {
          name: 'record_summary',
          arguments: {
            summary: MODEL_SUMMARY,
            nodesMentioned: ['fetch-api'],
            keyFindings: [],
            toolsUsed: [],
            topics: ['fetch-api'],
          },
        },
      ],
    };
  }
  return { text: `fetch-api calls the NBA stats API and hands the players on. ${'It is solid. '.repeat(30)}` };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Memory's summaries are written by the model the thread's workspace uses (docs/memory.md, "Summaries";
 * docs/provider-configs.md): the service itself has no model (offline), the workspace's active
 * configuration points at a scripted OpenAI-compatible endpoint.
 */
describe('Memory summaries with a workspace provider configuration (end to end)', () => {
  let upstream: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    upstream = await ScriptedLlmServer.start();
    upstream.enqueue(...Array.from({ length: 20 }, () => scripted));
    app = await startTestApp({
      LLM_PROVIDER: 'offline',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      EMBEDDING_PROVIDER: 'local',
      MEMORY_L1_EVERY_CHARS: '1000',
    });
  });

  afterAll(async () => {
    await app.close();
    await upstream.close();
  });

  async function conversation(): Promise<string> {
    let threadId: string | undefined;
    for (const message of ['What does fetch-api do?', 'And where do its players go?', 'Does fetch-api retry?']) {
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .set(alice)
        .send({ graphKey: GRAPH, message, ...(threadId ? { threadId } : {}) })
        .expect(200);
      threadId = answer.body.threadId;
    }
    return threadId as string;
  }

  const summaryOf = (threadId: string) =>
    until(
      async () =>
        (await request(app.url).get(`/api/ai/thread/${threadId}/memory?level=1`).set(alice).expect(200)).body as Array<{
          text: string;
        }>,
      (records) => records.length > 0,
    );

  it('summarizes with the workspace’s active model, and extractively once none is active', async () => {
    const config = await request(app.url)
      .post('/api/ai/provider-configs')
      .set(admin)
      .send({
        name: 'Scripted',
        provider: 'openai-compatible',
        model: 'scripted-model',
        baseUrl: upstream.openAiBaseUrl,
      })
      .expect(200);
    await request(app.url).post(`/api/ai/provider-configs/${config.body.configId}/activate`).set(admin).expect(200);

    const withModel = await summaryOf(await conversation());
    expect(withModel[0].text).toBe(MODEL_SUMMARY);
    expect(upstream.requests.some(isSummaryCall)).toBe(true);

    await request(app.url).delete('/api/ai/provider-configs/active').set(admin).expect(204);
    const calls = upstream.requests.length;
    const offline = await summaryOf(await conversation());
    expect(offline[0].text).toMatch(/^Extractive summary/);
    expect(upstream.requests).toHaveLength(calls);
  });
});

import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AlwaysSendController } from '../../src/ai/http/always-send.controller';
import type { ThreadEvent } from '../../src/conversation/thread-event';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'rich-messages-e2e-secret-of-32-chars!!';
const GRAPH = 'nba-workflow';

const sign = (sub: string, role: string, workspace = 'default') =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 });
const editor = sign('eddie', 'editor');
const viewer = sign('vera', 'viewer');
const outsider = sign('olga', 'admin', 'other-workspace');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The chat requests the model server received (the embeddings requests left out). */
const chatsOf = (server: ScriptedLlmServer) =>
  server.requests.filter((recorded) => Array.isArray(recorded.body.messages));

describe(`Rich messages and always-sent data (${AlwaysSendController.name}, end to end)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let client: AiSocketClient;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      AI_ALWAYS_SEND_MAX_TOKENS: '600',
    });
    client = await AiSocketClient.connect(app.url, { token: editor });
  });
  afterAll(async () => {
    client.socket.close();
    await app.close();
    await server.close();
  });
  beforeEach(() => server.reset());

  it('reads and replaces a graph’s always-sent list: editors only, known keys only, within its token share', async () => {
    const url = `/api/ai/graphs/${GRAPH}/always-send`;
    expect((await request(app.url).get(url).set(as(viewer)).expect(200)).body).toEqual({
      nodeKeys: [],
      nodeTypes: [],
      tokens: 0,
      maxTokens: 600,
    });
    await request(app.url).put(url).set(as(viewer)).send({ nodeKeys: [], nodeTypes: [] }).expect(403);
    const unknownField = await request(app.url)
      .put(url)
      .set(as(editor))
      .send({ nodeKeys: [], nodeTypes: [], pinned: true })
      .expect(400);
    expect(unknownField.body.message).toMatch(/pinned/);
    const missing = await request(app.url)
      .put(url)
      .set(as(editor))
      .send({ nodeKeys: ['ghost'], nodeTypes: ['unicorn'] })
      .expect(400);
    expect(missing.body).toMatchObject({
      code: 'bad_request',
      details: { missing: ['node ghost', 'node type unicorn'] },
    });
    const tooLarge = await request(app.url)
      .put(url)
      .set(as(editor))
      .send({ nodeKeys: ['fetch-api', 'filter-active', 'sort-stats', 'display-html'], nodeTypes: ['html'] })
      .expect(400);
    expect(tooLarge.body.message).toMatch(/over its share of 600 \(AI_ALWAYS_SEND_MAX_TOKENS\)/);

    const stored = await request(app.url)
      .put(url)
      .set(as(editor))
      .send({ nodeKeys: ['fetch-api', 'fetch-api'], nodeTypes: [] })
      .expect(200);
    expect(stored.body).toMatchObject({ nodeKeys: ['fetch-api'], nodeTypes: [], maxTokens: 600 });
    expect(stored.body.tokens).toBeGreaterThan(0);
    // Another workspace has no such graph.
    await request(app.url).get(url).set(as(outsider)).expect(404);
    await request(app.url).put(url).set(as(outsider)).send({ nodeKeys: [], nodeTypes: [] }).expect(404);

    server.enqueue({ text: 'It fetches the stats.' });
    await request(app.url).post('/api/ai/chat').set(as(editor)).send({ graphKey: GRAPH, message: 'Hi' }).expect(200);
    expect(String(chatsOf(server)[0].body.messages[1].content)).toContain('ALWAYS SENT for graph nba-workflow');
    await request(app.url).put(url).set(as(editor)).send({ nodeKeys: [], nodeTypes: [] }).expect(200);
  });

  it('takes segments over REST and the socket, and shows each block’s result in DATA_ADDED and the stored thread', async () => {
    server.enqueue({ text: 'Over REST.' }, { text: 'Over the socket.' });
    const segments = [
      { type: 'text', text: 'Explain' },
      { type: 'block', block: 'pointer', config: { nodeKeys: ['fetch-api'] }, preview: 'fetch-api' },
      { type: 'block', block: 'use', config: { nodeType: 'ghost-type' }, preview: 'Ghost' },
    ];
    const rest = await request(app.url)
      .post('/api/ai/chat')
      .set(as(editor))
      .send({ graphKey: GRAPH, segments })
      .expect(200);
    const restEvent = (rest.body.events as ThreadEvent[]).find((event) => event.type === 'DATA_ADDED');
    expect(restEvent?.results.filter((item) => item.label.startsWith('block '))).toEqual([
      expect.objectContaining({ ok: true, label: 'block 1 pointer node fetch-api', segment: 1 }),
      { ok: false, label: 'block 2 use node type ghost-type', detail: 'not found: node type ghost-type', segment: 2 },
    ]);
    const thread = await request(app.url).get(`/api/ai/thread/${rest.body.threadId}`).set(as(editor)).expect(200);
    expect(thread.body.messages[0]).toMatchObject({
      role: 'user',
      content: 'Explain [block 1 pointer: fetch-api] [block 2 use: Ghost]',
      segments,
    });

    const recording = await client.chat({
      _id: 1,
      graphKey: GRAPH,
      message: 'And now',
      segments: [segments[1]] as never,
    });
    expect(recording.complete?.fullText).toBe('Over the socket.');
    const socketEvent = recording.events.find((event) => event.event === 'ai:event')?.payload as {
      event: ThreadEvent;
    };
    expect(socketEvent.event.results).toContainEqual(
      expect.objectContaining({ ok: true, label: 'block 1 pointer node fetch-api', segment: 1 }),
    );
    expect(chatsOf(server)[1].body.messages.find((message: { role: string }) => message.role === 'user').content).toBe(
      'And now [block 1 pointer: fetch-api]',
    );

    const bad = await client.chat({
      _id: 2,
      graphKey: GRAPH,
      segments: [{ type: 'block', block: 'use', config: { nodeType: 'x', more: 1 }, preview: 'x' }] as never,
    });
    expect(bad.error).toMatchObject({ code: 'bad_request' });
    expect(bad.error?.error).toMatch(/unknown field "more"/);
    const none = await request(app.url).post('/api/ai/chat').set(as(editor)).send({ graphKey: GRAPH }).expect(400);
    expect(none.body.message).toMatch(/message/);
    expect(chatsOf(server)).toHaveLength(2);
  });
});

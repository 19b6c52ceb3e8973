import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AiGateway } from '../../src/ai/socket/ai.gateway';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'ai-e2e-secret-of-at-least-32-chars!';
const GRAPH = 'nba-workflow';

const sign = (claims: object, options: jwt.SignOptions = {}, key = SECRET) =>
  jwt.sign(claims, key, { expiresIn: 600, ...options });
const alice = sign({ sub: 'alice', workspace: 'default', role: 'editor' });
const bob = sign({ sub: 'bob', workspace: 'default', role: 'editor' });
const viewer = sign({ sub: 'vera', workspace: 'default' });
const viewerAsEditor = sign({ sub: 'vera', workspace: 'default', role: 'editor' });
const expired = sign({ sub: 'alice', workspace: 'default', role: 'editor' }, { expiresIn: -10 });
const forged = sign({ sub: 'alice', workspace: 'default', role: 'editor' }, {}, 'forged-secret-of-at-least-32-chars!!');

describe(`${AiGateway.name} and the REST routes with AUTH_MODE=jwt`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let bobsThread: string;
  const clients: AiSocketClient[] = [];

  const connect = async (token?: string) => {
    const client = await AiSocketClient.connect(app.url, { token });
    clients.push(client);
    return client;
  };
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
    });
    server.enqueue({ text: "Bob's answer." });
    const created = await request(app.url)
      .post('/api/ai/chat')
      .set(as(bob))
      .send({ graphKey: GRAPH, message: "Bob's question" })
      .expect(200);
    bobsThread = created.body.threadId;
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  beforeEach(() => server.reset());
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it.each([
    ['no token', undefined, 'Missing bearer token'],
    ['an expired token', expired, 'Token expired'],
    ['a forged token', forged, 'Invalid token'],
  ])('answers 401 to every /api/ai route with %s', async (_name, token, message) => {
    const calls = [
      request(app.url).post('/api/ai/chat').send({ graphKey: GRAPH, message: 'hi' }),
      request(app.url).post('/api/ai/resume').send({ threadId: bobsThread, approved: true }),
      request(app.url).post('/api/ai/threads').send({ graphKey: GRAPH }),
      request(app.url).get(`/api/ai/thread/${bobsThread}`),
      request(app.url).delete(`/api/ai/thread/${bobsThread}`),
    ];
    for (const call of calls) {
      const response = await (token ? call.set(as(token)) : call);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ statusCode: 401, code: 'unauthorized', message });
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['no token', undefined],
    ['an expired token', expired],
    ['a forged token', forged],
  ])('refuses a socket with %s at connection: connect_error "unauthorized"', async (_name, token) => {
    await expect(AiSocketClient.connect(app.url, { token })).rejects.toMatchObject({
      message: 'unauthorized',
      data: { code: 'unauthorized' },
    });
  });

  it("hides another user's thread: 404 over HTTP, not_found over the socket, and nothing runs", async () => {
    await request(app.url).get(`/api/ai/thread/${bobsThread}`).set(as(alice)).expect(404);
    await request(app.url).delete(`/api/ai/thread/${bobsThread}`).set(as(alice)).expect(404);
    await request(app.url)
      .post('/api/ai/chat')
      .set(as(alice))
      .send({ graphKey: GRAPH, message: 'hi', threadId: bobsThread })
      .expect(404);
    await request(app.url)
      .post('/api/ai/resume')
      .set(as(alice))
      .send({ threadId: bobsThread, approved: true })
      .expect(404);
    const listed = await request(app.url).post('/api/ai/threads').set(as(alice)).send({ graphKey: GRAPH }).expect(200);
    expect(listed.body.map((thread: { threadId: string }) => thread.threadId)).not.toContain(bobsThread);

    const client = await connect(alice);
    const chat = await client.chat({ _id: 1, graphKey: GRAPH, message: 'hi', threadId: bobsThread });
    expect(chat.names).toEqual(['ai:error']);
    expect(chat.error).toMatchObject({ _id: 1, code: 'not_found', retryable: false });
    const resume = await client.resume({ _id: 2, threadId: bobsThread, approved: true });
    // As for a thread that does not exist: its ai:thread (the id the request named), then not_found.
    expect(resume.names).toEqual(['ai:thread', 'ai:error']);
    expect(resume.error).toMatchObject({ _id: 2, code: 'not_found' });
    expect(server.requests).toHaveLength(0);
    await request(app.url).get(`/api/ai/thread/${bobsThread}`).set(as(bob)).expect(200);
  });

  it('lets a per-message token act for that message only; an invalid one fails the message and keeps the socket', async () => {
    server.enqueue({ text: 'Answer for Bob.' }, { text: 'Answer for Alice.' });
    const client = await connect(alice);

    const forBob = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Asked with Bob token', token: bob });
    const forAlice = await client.chat({ _id: 2, graphKey: GRAPH, message: 'Asked with the handshake token' });
    await request(app.url).get(`/api/ai/thread/${forBob.complete!.threadId}`).set(as(bob)).expect(200);
    await request(app.url).get(`/api/ai/thread/${forBob.complete!.threadId}`).set(as(alice)).expect(404);
    await request(app.url).get(`/api/ai/thread/${forAlice.complete!.threadId}`).set(as(alice)).expect(200);

    for (const [id, token] of [
      [3, expired],
      [4, forged],
    ] as const) {
      const failed = await client.chat({ _id: id, graphKey: GRAPH, message: 'hi', token });
      expect(failed.names).toEqual(['ai:error']);
      expect(failed.error).toMatchObject({ _id: id, code: 'unauthorized', retryable: false });
    }
    expect(client.socket.connected).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('refuses a viewer the approval of a proposal: 403 over HTTP, forbidden over the socket', async () => {
    server.enqueue({ text: 'Read-only answer.' });
    const answered = await request(app.url)
      .post('/api/ai/chat')
      .set(as(viewer))
      .send({ graphKey: GRAPH, message: 'What is root?' })
      .expect(200);
    const tools = server.requests[0].body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(tools.some((name: string) => name.startsWith('propose_'))).toBe(false);
    // Nothing waits on that thread (a viewer may answer the questions of their own threads: docs/policy.md).
    await request(app.url)
      .post('/api/ai/resume')
      .set(as(viewer))
      .send({ threadId: answered.body.threadId, approved: true })
      .expect(409);

    // A proposal made while the same user was an editor, answered with their viewer token.
    server.enqueue({
      toolCalls: [
        { id: 'call_w', name: 'propose_delete_node', arguments: { nodeKey: 'disconnected-note', reason: 'unused' } },
      ],
    });
    const asked = await request(app.url)
      .post('/api/ai/chat')
      .set(as(viewerAsEditor))
      .send({ graphKey: GRAPH, message: 'Delete it' })
      .expect(200);
    expect(asked.body).toMatchObject({ type: 'interrupt', interrupt: { kind: 'approval' } });
    const response = await request(app.url)
      .post('/api/ai/resume')
      .set(as(viewer))
      .send({ threadId: asked.body.threadId, approved: true })
      .expect(403);
    expect(response.body.code).toBe('forbidden');
    const client = await connect(viewer);
    const resumed = await client.resume({ _id: 1, threadId: asked.body.threadId, approved: true });
    expect(resumed.names).toEqual(['ai:thread', 'ai:error']);
    expect(resumed.error).toMatchObject({ _id: 1, code: 'forbidden', retryable: false });
  });
});

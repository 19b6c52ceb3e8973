import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { AiController } from '../../src/ai/http/ai.controller';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
const proposeLogNode = {
  id: 'call_create',
  name: 'propose_create_node',
  arguments: {
    nodeKey: 'log-errors',
    typeKey: 'log-node',
    sheet: '0',
    posX: 820,
    posY: 300,
    reason: 'Log the fetch errors',
  },
};

const chatCalls = (server: ScriptedLlmServer) =>
  server.requests.filter((recorded) => recorded.endpoint === 'openai.chat');

describe(`${AiController.name} (REST /api/ai, end to end)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      MESSAGE_MAX_CHARS: '2000',
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  beforeEach(() => server.reset());

  it('chats, lists, reads and deletes threads', async () => {
    server.enqueue(
      {
        text: 'Let me check. ',
        toolCalls: [{ id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
      },
      { text: 'fetch-api calls the NBA stats API.' },
      { text: 'It filters active players.' },
    );
    const first = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'What does fetch-api do?' })
      .expect(200);
    expect(first.body).toMatchObject({
      type: 'message',
      message: expect.stringContaining('fetch-api calls the NBA stats API.'),
      toolCalls: [{ id: 'call_read', name: 'read_node_detail', status: 'executed' }],
      usage: { llmCalls: 2 },
    });
    const threadId: string = first.body.threadId;
    expect(threadId).toMatch(/^ai_/);

    const second = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'And filter-active?', threadId, mentions: ['filter-active'] })
      .expect(200);
    expect(second.body).toMatchObject({ threadId, type: 'message', message: 'It filters active players.' });

    const list = await request(app.url).post('/api/ai/threads').send({ graphKey: GRAPH }).expect(200);
    expect(list.body[0]).toEqual({
      threadId,
      graphKey: GRAPH,
      title: 'What does fetch-api do?',
      type: 'chat',
      createdTime: expect.any(Number),
      lastUpdatedTime: expect.any(Number),
      messageCount: 6,
      pendingInterrupt: false,
    });

    const thread = await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200);
    expect(thread.body).toMatchObject({
      threadId,
      graphKey: GRAPH,
      title: 'What does fetch-api do?',
      pendingInterrupt: null,
    });
    // Each question is followed by its DATA_ADDED event (docs/protocol.md §8.3), which messageCount leaves out.
    expect(thread.body.messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'event',
      'assistant',
      'tool',
      'assistant',
      'user',
      'event',
      'assistant',
    ]);
    expect(thread.body.messages[1]).toMatchObject({ role: 'event', event: { type: 'DATA_ADDED' } });
    expect(thread.body.messages[2]).toEqual({
      // docs/protocol.md §9.4: every message carries the id undo and restore name.
      id: expect.any(String),
      role: 'assistant',
      content: 'Let me check. ',
      toolCalls: [{ id: 'call_read', name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}' }],
      createdTime: expect.any(Number),
    });
    expect(thread.body.messages[3]).toMatchObject({
      role: 'tool',
      toolCallId: 'call_read',
      content: expect.stringContaining('fetch-api'),
    });
    expect(thread.body.usage.llmCalls).toBe(3);

    await request(app.url).delete(`/api/ai/thread/${threadId}`).expect(204);
    await request(app.url).get(`/api/ai/thread/${threadId}`).expect(404);
    await request(app.url).delete(`/api/ai/thread/${threadId}`).expect(404);
  });

  it('interrupts on a proposal and applies it on resume', async () => {
    server.enqueue({ text: 'I propose a log node.', toolCalls: [proposeLogNode] }, { text: 'Added.' });
    const interrupted = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Log the errors of fetch-api' })
      .expect(200);
    expect(interrupted.body).toMatchObject({
      type: 'interrupt',
      message: 'I propose a log node.',
      interrupt: { kind: 'approval', toolCallId: 'call_create', proposedAction: { type: 'create_node' } },
      toolCalls: [{ id: 'call_create', status: 'proposed' }],
    });
    const listed = await request(app.url).post('/api/ai/threads').send({ graphKey: GRAPH }).expect(200);
    expect(
      listed.body.find((summary: { threadId: string }) => summary.threadId === interrupted.body.threadId)
        .pendingInterrupt,
    ).toBe(true);

    const resumed = await request(app.url)
      .post('/api/ai/resume')
      .send({ threadId: interrupted.body.threadId, approved: true })
      .expect(200);
    expect(resumed.body).toMatchObject({
      type: 'message',
      message: 'Added.',
      resolution: { status: 'approved', appliedBy: 'server' },
    });
    const graph = await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200);
    expect(graph.body.nodes.filter((node: { _key: string }) => node._key === 'log-errors')).toHaveLength(1);
    await request(app.url)
      .put(`/api/graphs/${GRAPH}`)
      .send({ ...graph.body, nodes: graph.body.nodes.filter((node: { _key: string }) => node._key !== 'log-errors') })
      .expect(200);
  });

  it('applies two concurrent resumes of one proposal exactly once: the other gets 409', async () => {
    server.enqueue(
      { toolCalls: [{ ...proposeLogNode, arguments: { ...proposeLogNode.arguments, nodeKey: 'log-once' } }] },
      { text: 'Added once.', chunkSize: 2, delayMs: 20 },
    );
    const interrupted = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Add a log node' })
      .expect(200);
    const body = { threadId: interrupted.body.threadId, approved: true };
    const answers = await Promise.all([
      request(app.url).post('/api/ai/resume').send(body),
      request(app.url).post('/api/ai/resume').send(body),
    ]);

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const loser = answers.find((answer) => answer.status === 409)!;
    expect(['thread_busy', 'conflict']).toContain(loser.body.code);
    const graph = await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200);
    expect(graph.body.nodes.filter((node: { _key: string }) => node._key === 'log-once')).toHaveLength(1);
    expect(chatCalls(server)).toHaveLength(2);
  });

  it('replays an Idempotency-Key: the first answer again, without a second LLM call', async () => {
    server.enqueue({ text: 'Only once.' });
    const key = `key-${Date.now()}`;
    const first = await request(app.url)
      .post('/api/ai/chat')
      .set('Idempotency-Key', key)
      .send({ graphKey: GRAPH, message: 'hello' })
      .expect(200);
    const replay = await request(app.url)
      .post('/api/ai/chat')
      .set('Idempotency-Key', key)
      .send({ graphKey: GRAPH, message: 'hello' })
      .expect(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(chatCalls(server)).toHaveLength(1);

    server.enqueue({ text: 'Another key, another answer.' });
    const other = await request(app.url)
      .post('/api/ai/chat')
      .set('Idempotency-Key', `${key}-2`)
      .send({ graphKey: GRAPH, message: 'hello' })
      .expect(200);
    expect(other.body.message).toBe('Another key, another answer.');
    expect(chatCalls(server)).toHaveLength(2);
  });

  it('answers 409 thread_busy to a repeat of an Idempotency-Key whose first request still runs', async () => {
    server.enqueue({ text: 'Slow but sure.', chunkSize: 2, delayMs: 40 });
    const key = `busy-${Date.now()}`;
    const first = request(app.url)
      .post('/api/ai/chat')
      .set('Idempotency-Key', key)
      .send({ graphKey: GRAPH, message: 'hello' })
      .then((answer) => answer);
    await server.waitForRequests(1);
    const repeat = await request(app.url)
      .post('/api/ai/chat')
      .set('Idempotency-Key', key)
      .send({ graphKey: GRAPH, message: 'hello' })
      .expect(409);
    expect(repeat.body).toMatchObject({ code: 'thread_busy', retryable: true });
    expect((await first).status).toBe(200);
  });

  it.each([
    ['chat with an unknown field', '/api/ai/chat', { graphKey: GRAPH, message: 'hi', color: 'red' }, 'color'],
    ['chat without a message', '/api/ai/chat', { graphKey: GRAPH }, 'message'],
    [
      'chat with too many mentions',
      '/api/ai/chat',
      { graphKey: GRAPH, message: 'hi', mentions: Array.from({ length: 51 }, (_, i) => `n${i}`) },
      'mentions',
    ],
    ['resume with a string approved', '/api/ai/resume', { threadId: 'ai_x', approved: 'yes' }, 'approved'],
    ['resume with an unknown field', '/api/ai/resume', { threadId: 'ai_x', approved: true, _id: 3 }, '_id'],
    ['threads with an unknown field', '/api/ai/threads', { graphKey: GRAPH, limit: 3 }, 'limit'],
  ])('answers 400 bad_request to %s', async (_name, path, body, field) => {
    const response = await request(app.url).post(path).send(body).expect(400);
    expect(response.body).toMatchObject({
      statusCode: 400,
      code: 'bad_request',
      message: expect.stringContaining(field),
    });
    expect(chatCalls(server)).toHaveLength(0);
  });

  it('answers 413 to a message longer than MESSAGE_MAX_CHARS and 404 to an unknown graph', async () => {
    const tooLong = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'x'.repeat(2001) })
      .expect(413);
    expect(tooLong.body.code).toBe('payload_too_large');
    await request(app.url).post('/api/ai/chat').send({ graphKey: 'nope', message: 'hi' }).expect(404);
    await request(app.url)
      .post('/api/ai/resume')
      .send({ threadId: 'ai_unknown0000000000000000', approved: true })
      .expect(404);
    expect(chatCalls(server)).toHaveLength(0);
  });

  it('stops the run when the HTTP client goes away: the upstream request is cancelled and the partial text kept', async () => {
    server.enqueue({ text: 'fetch-api calls the NBA stats API, then', chunkSize: 5, hangAfterChunks: 4 });
    const { port } = new URL(app.url);
    const body = JSON.stringify({ graphKey: GRAPH, message: 'A long explanation please' });
    const call = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/api/ai/chat',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    call.on('error', () => undefined);
    call.end(body);
    await server.waitForRequests(1);
    while (server.requests[0].chunksSent < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    call.destroy();
    await server.waitForClientClose(0);

    const deadline = Date.now() + 5_000;
    let stored: { messages: Array<{ role: string; content: string; aborted?: boolean }> } | undefined;
    while (Date.now() < deadline) {
      const threads = await request(app.url).post('/api/ai/threads').send({ graphKey: GRAPH }).expect(200);
      const summary = threads.body.find((thread: { title: string }) => thread.title === 'A long explanation please');
      if (summary) {
        stored = (await request(app.url).get(`/api/ai/thread/${summary.threadId}`).expect(200)).body;
        if (stored!.messages.at(-1)?.aborted) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(stored!.messages.at(-1)).toMatchObject({ role: 'assistant', aborted: true });
    expect('fetch-api calls the NBA stats API, then'.startsWith(stored!.messages.at(-1)!.content)).toBe(true);
    expect(stored!.messages.at(-1)!.content.length).toBeGreaterThan(0);
  });

  it('documents every route in the OpenAPI document with examples', async () => {
    const document = await request(app.url).get('/docs-json').expect(200);
    const paths = document.body.paths;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(['/api/ai/chat', '/api/ai/resume', '/api/ai/threads', '/api/ai/thread/{threadId}']),
    );
    const chat = paths['/api/ai/chat'].post;
    expect(Object.keys(chat.responses['200'].content['application/json'].examples)).toEqual([
      'message',
      'autonomous',
      'interrupt',
      'question',
    ]);
    expect(chat.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]),
    );
    expect(chat.responses).toHaveProperty('429');
    expect(chat.responses['402'].content['application/json'].schema.example).toMatchObject({
      statusCode: 402,
      code: 'budget_exceeded',
    });
    // feedback and answer have the limit of a message (MESSAGE_MAX_CHARS).
    expect(paths['/api/ai/resume'].post.responses['413'].content['application/json'].schema.example).toMatchObject({
      code: 'payload_too_large',
    });
    expect(chat.security).toEqual([{ bearer: [] }]);
    expect(paths['/api/ai/thread/{threadId}'].delete.responses).toHaveProperty('204');
  });
});

describe(`${AiController.name} and the gateway with RATE_LIMIT_PER_MINUTE=1, AI_LOCALE=fr, SOCKET_CORS_ORIGINS`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '1',
      AI_LOCALE: 'fr',
      SOCKET_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('shares one budget between REST and socket requests: 429 and ai:error rate_limit, in French', async () => {
    server.enqueue({ text: 'Bonjour.' });
    await request(app.url).post('/api/ai/chat').send({ graphKey: GRAPH, message: 'Bonjour' }).expect(200);
    const limited = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Encore' })
      .expect(429);
    expect(limited.body).toMatchObject({ code: 'rate_limit', retryable: true });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const client = await AiSocketClient.connect(app.url);
    try {
      const failed = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Encore' });
      expect(failed.error).toEqual({
        _id: 1,
        seq: 1,
        code: 'rate_limit',
        retryable: true,
        error: 'Vous envoyez trop de requêtes. Patientez un instant et réessayez.',
      });
      const bad = await client.resume({ _id: 2, threadId: 'ai_x', approved: 'oui' as unknown as boolean });
      expect(bad.error!.error).toMatch(/^La requête est invalide\./);
    } finally {
      client.close();
    }
    expect(chatCalls(server)).toHaveLength(1);
  });

  it('allows the configured origins on the polling transport (preflight and handshake), and only them', async () => {
    const preflight = await request(app.url)
      .options('/socket.io/?EIO=4&transport=polling')
      .set('Origin', 'https://admin.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://admin.example.com');
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    const handshake = await request(app.url)
      .get('/socket.io/?EIO=4&transport=polling')
      .set('Origin', 'https://app.example.com')
      .expect(200);
    expect(handshake.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(handshake.text).toContain('"sid"');
    const foreign = await request(app.url)
      .get('/socket.io/?EIO=4&transport=polling')
      .set('Origin', 'https://evil.example.com')
      .expect(200);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { AiSocketClient } from '../support/ai-socket.client';
import { RecordedRequest, ScriptedLlmServer } from '../support/scripted-llm-server';
import { editorToken } from '../support/request-events';
import { startTestApp, TestApp } from '../support/test-app';
import { TestAppProcess } from '../support/test-app.process';
import { TestRedisServer } from '../support/test-redis.server';

const GRAPH = 'nba-workflow';

/** The user and assistant texts the model was sent, in order. */
function conversationSent(recorded: RecordedRequest): string[] {
  return (recorded.body.messages as Array<{ role: string; content: string | null }>)
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map((message) => `${message.role}: ${message.content ?? ''}`);
}

/** The thread's user and assistant messages as stored, with `(aborted)` marking a stopped answer. */
async function storedConversation(url: string, threadId: string): Promise<string[]> {
  const thread = await request(url).get(`/api/ai/thread/${threadId}`).expect(200);
  return (thread.body.messages as Array<{ role: string; content: string | null; aborted?: boolean }>)
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map((message) => `${message.role}: ${message.content ?? ''}${message.aborted ? ' (aborted)' : ''}`);
}

describe('A message sent while a run is active on its thread (multitaskStrategy, docs/protocol.md §9.7)', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let dataDir: string;
  const clients: AiSocketClient[] = [];

  const connect = async () => {
    const client = await AiSocketClient.connect(app.url);
    clients.push(client);
    return client;
  };

  /** A thread with one answered question, then a second question streaming on it until stopped. */
  const threadWithActiveRun = async (client: AiSocketClient, activeText = 'The first answer goes on and on') => {
    server.enqueue({ text: 'Hello.' }, { text: activeText, chunkSize: 4, hangAfterChunks: 3 });
    const threadId = (await client.chat({ _id: 1, graphKey: GRAPH, message: 'Hi' })).complete!.threadId;
    client.socket.emit('ai:chat', { _id: 2, graphKey: GRAPH, message: 'Tell me a long story', threadId });
    await client.firstToken(2);
    return threadId;
  };

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    dataDir = mkdtempSync(path.join(tmpdir(), 'ai-multitask-'));
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      DATA_DIR: dataDir,
      AI_ENQUEUE_MAX: '1',
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it('rejects by default and with `reject`: thread_busy over REST and Socket.IO, the active run untouched', async () => {
    const client = await connect();
    const threadId = await threadWithActiveRun(client);
    const http = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Me too', threadId, multitaskStrategy: 'reject' })
      .expect(409);
    expect(http.body).toMatchObject({ code: 'thread_busy', retryable: true });
    const socket = await client.chat({ _id: 3, graphKey: GRAPH, message: 'Me too', threadId });
    expect(socket.names).toEqual(['ai:thread', 'ai:error']);
    expect(socket.error).toMatchObject({ code: 'thread_busy' });
    expect(client.recordingOf(2).complete).toBeUndefined();
    client.interrupt(2);
    expect((await client.terminalOf(2)).complete).toMatchObject({ aborted: true });
  });

  it('refuses an unknown strategy with 400 and on the socket, before anything runs', async () => {
    const http = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Hi', multitaskStrategy: 'queue' })
      .expect(400);
    expect(http.body.code).toBe('bad_request');
    const client = await connect();
    client.emitRaw('ai:chat', { _id: 9, graphKey: GRAPH, message: 'Hi', multitaskStrategy: 'queue' });
    expect((await client.terminalOf(9)).error).toMatchObject({ code: 'bad_request' });
    expect(server.requests).toHaveLength(0);
  });

  it('enqueues over Socket.IO: ai:queued at once, then the message runs after the active run, with its answer in the history', async () => {
    server.enqueue(
      { text: 'Hello.' },
      { text: 'First, slowly.', chunkSize: 2, delayMs: 40 },
      { text: 'Second, after it.' },
    );
    const client = await connect();
    const threadId = (await client.chat({ _id: 1, graphKey: GRAPH, message: 'Hi' })).complete!.threadId;
    client.socket.emit('ai:chat', { _id: 2, graphKey: GRAPH, message: 'First', threadId });
    await client.firstToken(2);
    const queued = await client.chat({
      _id: 3,
      graphKey: GRAPH,
      message: 'Second',
      threadId,
      multitaskStrategy: 'enqueue',
    });
    expect(queued.names[0]).toBe('ai:queued');
    expect(queued.events[0].payload).toEqual({ _id: 3, threadId, seq: expect.any(Number) });
    expect(queued.names).toContain('ai:thread');
    expect(queued.complete).toMatchObject({ threadId, fullText: 'Second, after it.' });
    expect(queued.complete!.aborted).toBeUndefined();
    // The active run was not stopped, and ended before the queued one began.
    const first = client.recordingOf(2);
    expect(first.complete).toMatchObject({ fullText: 'First, slowly.' });
    const order = client.received.map((event) => `${event.event}:${(event.payload as { _id: number })._id}`);
    expect(order.indexOf('ai:complete:2')).toBeLessThan(order.indexOf('ai:thread:3'));
    expect(conversationSent(server.requests[2])).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: First',
      'assistant: First, slowly.',
      'user: Second',
    ]);
  });

  it('enqueues over REST, bounded by AI_ENQUEUE_MAX: one more waiting message is 429 rate_limited, the others run in order', async () => {
    const client = await connect();
    const threadId = await threadWithActiveRun(client);
    server.enqueue({ text: 'Queued on the socket.' }, { text: 'Queued over REST.' });
    client.socket.emit('ai:chat', {
      _id: 3,
      graphKey: GRAPH,
      message: 'Socket next',
      threadId,
      multitaskStrategy: 'enqueue',
    });
    await client.waitUntil(() => client.eventsOf(3).some((event) => event.event === 'ai:queued'));

    const full = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'One too many', threadId, multitaskStrategy: 'enqueue' })
      .expect(429);
    expect(full.body).toMatchObject({ code: 'rate_limited', retryable: true });

    // The active run ends (stopped by its client): the socket's message runs, then one sent over REST meanwhile.
    client.interrupt(2);
    await client.terminalOf(2);
    const rest = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'REST next', threadId, multitaskStrategy: 'enqueue' })
      .expect(200);
    expect(rest.body).toMatchObject({ threadId, message: 'Queued over REST.' });
    expect((await client.terminalOf(3)).complete).toMatchObject({ fullText: 'Queued on the socket.' });
    expect(await storedConversation(app.url, threadId)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Tell me a long story',
      `assistant: ${client.recordingOf(2).text} (aborted)`,
      'user: Socket next',
      'assistant: Queued on the socket.',
      'user: REST next',
      'assistant: Queued over REST.',
    ]);
  });

  it('interrupts over Socket.IO: the active run stops keeping its text, then the message runs on the thread it left', async () => {
    const client = await connect();
    const threadId = await threadWithActiveRun(client);
    server.enqueue({ text: 'Answering the new message.' });
    const next = await client.chat({
      _id: 3,
      graphKey: GRAPH,
      message: 'Actually, something else',
      threadId,
      multitaskStrategy: 'interrupt',
    });
    const stopped = client.recordingOf(2);
    expect(stopped.complete).toMatchObject({ aborted: true, fullText: stopped.text });
    expect(stopped.complete!.rolledBack).toBeUndefined();
    expect(next.names[0]).toBe('ai:queued');
    expect(next.complete).toMatchObject({ threadId, fullText: 'Answering the new message.' });
    await server.waitForClientClose(1);
    expect(conversationSent(server.requests[2])).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Tell me a long story',
      `assistant: ${stopped.text}`,
      'user: Actually, something else',
    ]);
    expect(await storedConversation(app.url, threadId)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Tell me a long story',
      `assistant: ${stopped.text} (aborted)`,
      'user: Actually, something else',
      'assistant: Answering the new message.',
    ]);
  });

  it('rolls back over REST: the active run stops and its whole turn leaves the thread, then the message runs', async () => {
    const client = await connect();
    const threadId = await threadWithActiveRun(client);
    server.enqueue({ text: 'As if the story was never asked.' });
    const next = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Forget that, just say hi', threadId, multitaskStrategy: 'rollback' })
      .expect(200);
    expect(next.body).toMatchObject({ threadId, message: 'As if the story was never asked.' });
    expect((await client.terminalOf(2)).complete).toMatchObject({ aborted: true, rolledBack: true });
    expect(conversationSent(server.requests[2])).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Forget that, just say hi',
    ]);
    expect(await storedConversation(app.url, threadId)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Forget that, just say hi',
      'assistant: As if the story was never asked.',
    ]);
    // The thread stays valid: it goes on as usual.
    server.enqueue({ text: 'Still here.' });
    const after = await client.chat({ _id: 4, graphKey: GRAPH, message: 'And now?', threadId });
    expect(after.complete).toMatchObject({ fullText: 'Still here.' });
  });

  it('interrupts over REST and rolls back over Socket.IO alike', async () => {
    const client = await connect();
    const threadId = await threadWithActiveRun(client);
    server.enqueue({ text: 'Interrupted over REST.' });
    const rest = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Stop here', threadId, multitaskStrategy: 'interrupt' })
      .expect(200);
    expect(rest.body).toMatchObject({ threadId, message: 'Interrupted over REST.' });
    const stopped = await client.terminalOf(2);
    expect(stopped.complete).toMatchObject({ aborted: true, fullText: stopped.text });
    expect(stopped.complete!.rolledBack).toBeUndefined();

    server.enqueue({ text: 'A story that will not stay', chunkSize: 4, hangAfterChunks: 3 }, { text: 'Rolled back.' });
    client.socket.emit('ai:chat', { _id: 3, graphKey: GRAPH, message: 'Another story', threadId });
    await client.firstToken(3);
    const next = await client.chat({ _id: 4, graphKey: GRAPH, message: 'No', threadId, multitaskStrategy: 'rollback' });
    expect(next.names[0]).toBe('ai:queued');
    expect(next.complete).toMatchObject({ fullText: 'Rolled back.' });
    expect((await client.terminalOf(3)).complete).toMatchObject({ aborted: true, rolledBack: true });
    expect(await storedConversation(app.url, threadId)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Tell me a long story',
      `assistant: ${stopped.text} (aborted)`,
      'user: Stop here',
      'assistant: Interrupted over REST.',
      'user: No',
      'assistant: Rolled back.',
    ]);
  });

  it('a waiting message stopped by its client (ai:interrupt) completes aborted with nothing stored, and the line moves on', async () => {
    const client = await connect();
    const threadId = await threadWithActiveRun(client);
    client.socket.emit('ai:chat', {
      _id: 3,
      graphKey: GRAPH,
      message: 'Never mind',
      threadId,
      multitaskStrategy: 'enqueue',
    });
    await client.waitUntil(() => client.eventsOf(3).some((event) => event.event === 'ai:queued'));
    client.interrupt(3);
    const dropped = await client.terminalOf(3);
    expect(dropped.names).toEqual(['ai:queued', 'ai:thread', 'ai:complete']);
    expect(dropped.complete).toMatchObject({ threadId, fullText: '', aborted: true });
    // Its place is free: another message may wait now (AI_ENQUEUE_MAX is 1).
    server.enqueue({ text: 'After the interrupted story.' });
    client.socket.emit('ai:chat', {
      _id: 4,
      graphKey: GRAPH,
      message: 'Then this',
      threadId,
      multitaskStrategy: 'enqueue',
    });
    await client.waitUntil(() => client.eventsOf(4).some((event) => event.event === 'ai:queued'));
    client.interrupt(2);
    expect((await client.terminalOf(4)).complete).toMatchObject({ fullText: 'After the interrupted story.' });
    expect(await storedConversation(app.url, threadId)).not.toContain('user: Never mind');
  });
});

describe('Messages sent during a run across two instances sharing a store and Redis (§9.7)', () => {
  const SECRET = 'multitask-e2e-secret-of-32-chars-at-least';
  const tokenOf = (user: string) => editorToken(SECRET, user);
  let llm: ScriptedLlmServer;
  let redis: TestRedisServer;
  let dataDir: string;
  let env: Record<string, string>;
  let a: TestAppProcess;
  let b: TestAppProcess;
  const clients: AiSocketClient[] = [];

  const connect = async (instance: TestAppProcess, user = 'ines') => {
    const client = await AiSocketClient.connect(instance.url, { token: tokenOf(user) });
    clients.push(client);
    return client;
  };
  const conversationOn = async (instance: TestAppProcess, threadId: string) => {
    const thread = await request(instance.url)
      .get(`/api/ai/thread/${threadId}`)
      .set('Authorization', `Bearer ${tokenOf('ines')}`)
      .expect(200);
    return (thread.body.messages as Array<{ role: string; content: string | null; aborted?: boolean }>)
      .filter((message) => message.role === 'user' || message.role === 'assistant')
      .map((message) => `${message.role}: ${message.content ?? ''}${message.aborted ? ' (aborted)' : ''}`);
  };
  /** A thread of ines with one answered question, then a second one streaming on `instance` until stopped. */
  const threadWithActiveRunOn = async (instance: TestAppProcess) => {
    llm.enqueue({ text: 'Hello.' }, { text: 'The first answer goes on and on', chunkSize: 4, hangAfterChunks: 3 });
    const client = await connect(instance);
    const threadId = (await client.chat({ _id: 1, graphKey: GRAPH, message: 'Hi' })).complete!.threadId;
    client.socket.emit('ai:chat', { _id: 2, graphKey: GRAPH, message: 'Tell me a long story', threadId });
    await client.firstToken(2);
    return { client, threadId };
  };

  beforeAll(async () => {
    [llm, redis] = await Promise.all([ScriptedLlmServer.start(), TestRedisServer.start()]);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ai-multitask-instances-'));
    env = {
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      THREAD_LEASE_MS: '3000',
    };
    a = await TestAppProcess.start(env, { timeoutMs: 60_000 });
    b = await TestAppProcess.start(env, { timeoutMs: 60_000 });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([llm?.close(), redis?.stop()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
  beforeEach(() => llm.reset());
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it('interrupts a run on A from a message sent to B, and rolls back one on B from a message sent to A', async () => {
    const onA = await threadWithActiveRunOn(a);
    llm.enqueue({ text: 'B took over.' });
    const fromB = await (
      await connect(b)
    ).chat({
      _id: 1,
      graphKey: GRAPH,
      message: 'Stop, answer this',
      threadId: onA.threadId,
      multitaskStrategy: 'interrupt',
    });
    expect(fromB.names[0]).toBe('ai:queued');
    expect(fromB.complete).toMatchObject({ fullText: 'B took over.' });
    const stopped = await onA.client.terminalOf(2);
    expect(stopped.complete).toMatchObject({ aborted: true, fullText: stopped.text });
    expect(await conversationOn(b, onA.threadId)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Tell me a long story',
      `assistant: ${stopped.text} (aborted)`,
      'user: Stop, answer this',
      'assistant: B took over.',
    ]);

    llm.reset();
    const onB = await threadWithActiveRunOn(b);
    llm.enqueue({ text: 'A rolled it back.' });
    const fromA = await request(a.url)
      .post('/api/ai/chat')
      .set('Authorization', `Bearer ${tokenOf('ines')}`)
      .send({ graphKey: GRAPH, message: 'Never mind the story', threadId: onB.threadId, multitaskStrategy: 'rollback' })
      .expect(200);
    expect(fromA.body.message).toBe('A rolled it back.');
    expect((await onB.client.terminalOf(2)).complete).toMatchObject({ aborted: true, rolledBack: true });
    expect(await conversationOn(a, onB.threadId)).toEqual([
      'user: Hi',
      'assistant: Hello.',
      'user: Never mind the story',
      'assistant: A rolled it back.',
    ]);
  });

  it('runs messages enqueued on A and B in the order they were sent, after the active run', async () => {
    const { client, threadId } = await threadWithActiveRunOn(a);
    llm.enqueue({ text: 'Answer one.' }, { text: 'Answer two.' }, { text: 'Answer three.' });
    const onB = await connect(b);
    onB.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'One', threadId, multitaskStrategy: 'enqueue' });
    await onB.waitUntil(() => onB.eventsOf(1).some((event) => event.event === 'ai:queued'));
    client.socket.emit('ai:chat', { _id: 3, graphKey: GRAPH, message: 'Two', threadId, multitaskStrategy: 'enqueue' });
    await client.waitUntil(() => client.eventsOf(3).some((event) => event.event === 'ai:queued'));
    onB.socket.emit('ai:chat', { _id: 2, graphKey: GRAPH, message: 'Three', threadId, multitaskStrategy: 'enqueue' });
    await onB.waitUntil(() => onB.eventsOf(2).some((event) => event.event === 'ai:queued'));

    client.interrupt(2);
    expect((await onB.terminalOf(2, 15_000)).complete).toMatchObject({ fullText: 'Answer three.' });
    expect((await onB.terminalOf(1)).complete).toMatchObject({ fullText: 'Answer one.' });
    expect((await client.terminalOf(3)).complete).toMatchObject({ fullText: 'Answer two.' });
    expect((await conversationOn(a, threadId)).slice(4)).toEqual([
      'user: One',
      'assistant: Answer one.',
      'user: Two',
      'assistant: Answer two.',
      'user: Three',
      'assistant: Answer three.',
    ]);
  });

  it("refuses a stranger's message on a busy thread with not_found: nothing is stopped or queued", async () => {
    const { client, threadId } = await threadWithActiveRunOn(a);
    const stranger = await request(b.url)
      .post('/api/ai/chat')
      .set('Authorization', `Bearer ${tokenOf('mallory')}`)
      .send({ graphKey: GRAPH, message: 'Stop it', threadId, multitaskStrategy: 'interrupt' })
      .expect(404);
    expect(stranger.body.code).toBe('not_found');
    expect(client.recordingOf(2).complete).toBeUndefined();
    client.interrupt(2);
    expect((await client.terminalOf(2)).complete).toMatchObject({ aborted: true });
  });

  it('survives a kill -9 of the instance running an enqueued message: the next one runs once its lease expires', async () => {
    const { client, threadId } = await threadWithActiveRunOn(a);
    // B's enqueued message will hang upstream (held by the kill), the one sent to A after it answers.
    llm.enqueue({ text: 'B hangs here', chunkSize: 3, hangAfterChunks: 2 }, { text: 'A after the kill.' });
    const onB = await connect(b);
    onB.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'On B', threadId, multitaskStrategy: 'enqueue' });
    await onB.waitUntil(() => onB.eventsOf(1).some((event) => event.event === 'ai:queued'));
    client.socket.emit('ai:chat', { _id: 3, graphKey: GRAPH, message: 'On A', threadId, multitaskStrategy: 'enqueue' });
    await client.waitUntil(() => client.eventsOf(3).some((event) => event.event === 'ai:queued'));
    client.interrupt(2);
    await onB.firstToken(1, 10_000);
    // The kill lands while B's enqueued run streams upstream: the third request, its question last.
    const upstreamWhenKilled = llm.requests.length;
    await b.kill();

    const after = await client.terminalOf(3, 20_000);
    expect(after.complete).toMatchObject({ fullText: 'A after the kill.' });
    expect(upstreamWhenKilled).toBe(3);
    expect(conversationSent(llm.requests[2]).at(-1)).toBe('user: On B');
    const stored = await conversationOn(a, threadId);
    expect(stored.slice(-2)).toEqual(['user: On A', 'assistant: A after the kill.']);
    expect(stored).toContain('user: On B');
    b = await TestAppProcess.start(env, { timeoutMs: 60_000 });
  }, 90_000);
});

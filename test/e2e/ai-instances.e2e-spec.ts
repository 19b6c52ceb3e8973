import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { ActiveRunRegistry } from '../../src/ai/runs/active-run.registry';
import { AiSocketClient } from '../support/ai-socket.client';
import { RecordedRequest, ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';
import { TestAppProcess } from '../support/test-app.process';

const GRAPH = 'nba-workflow';

const proposeNode = (nodeKey: string) => ({
  id: `call_${nodeKey}`,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 900, posY: 320, reason: 'Log the fetch errors' },
});

/** The user and assistant texts the model was sent, in order. */
function conversationSent(recorded: RecordedRequest): string[] {
  return (recorded.body.messages as Array<{ role: string; content: string | null }>)
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map((message) => `${message.role}: ${message.content ?? ''}`);
}

async function nodeCount(url: string, key: string): Promise<number> {
  const graph = await request(url).get(`/api/graphs/${GRAPH}`).expect(200);
  return graph.body.nodes.filter((node: { _key: string }) => node._key === key).length;
}

describe(`Several service instances on one store (${ActiveRunRegistry.name}, leases, roaming)`, () => {
  let server: ScriptedLlmServer;
  let dataDir: string;
  let env: Record<string, string>;
  const clients: AiSocketClient[] = [];

  const connect = async (url: string) => {
    const client = await AiSocketClient.connect(url);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    dataDir = mkdtempSync(path.join(tmpdir(), 'ai-instances-'));
    env = { ...server.providerEnv('openai'), EMBEDDING_PROVIDER: 'local', DATA_DIR: dataDir };
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('continues a thread, and approves its pending proposal, after a restart on the same data directory', async () => {
    server.enqueue(
      { text: 'fetch-api calls the API.' },
      { text: 'I suggest a log node.', toolCalls: [proposeNode('log-restart')] },
      { text: 'Added after the restart.' },
    );
    const before = await startTestApp(env);
    let threadId: string;
    try {
      const client = await connect(before.url);
      threadId = (await client.chat({ _id: 1, graphKey: GRAPH, message: 'What does fetch-api do?' })).complete!
        .threadId;
      const proposal = await client.chat({ _id: 2, graphKey: GRAPH, message: 'Log its errors', threadId });
      expect(proposal.complete!.interrupt).toMatchObject({ kind: 'approval', toolCallId: 'call_log-restart' });
    } finally {
      await before.close({ keepData: true });
    }

    const after = await startTestApp(env);
    try {
      const client = await connect(after.url);
      const resumed = await client.resume({ _id: 1, threadId, approved: true });
      expect(resumed.complete).toMatchObject({ threadId, fullText: 'Added after the restart.' });
      expect(await nodeCount(after.url, 'log-restart')).toBe(1);
      expect(conversationSent(server.requests[2])).toEqual([
        'user: What does fetch-api do?',
        'assistant: fetch-api calls the API.',
        'user: Log its errors',
        'assistant: I suggest a log node.',
      ]);
    } finally {
      await after.close({ keepData: true });
    }
  });

  it('stops running generations at shutdown: the client gets ai:complete aborted, and the partial text survives the restart', async () => {
    server.enqueue({ text: 'The workflow starts at root and then', chunkSize: 4, hangAfterChunks: 4 });
    const app = await startTestApp(env);
    const client = await connect(app.url);
    client.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through the workflow' });
    const first = await client.firstToken(1);
    expect(first.length).toBeGreaterThan(0);
    await app.close({ keepData: true });

    const stopped = client.recordingOf(1);
    expect(stopped.complete).toMatchObject({ _id: 1, aborted: true, fullText: stopped.text });
    await server.waitForClientClose(0);

    const restarted = await startTestApp(env);
    try {
      const thread = await request(restarted.url).get(`/api/ai/thread/${stopped.complete!.threadId}`).expect(200);
      expect(thread.body.messages.at(-1)).toEqual({
        id: expect.any(String),
        role: 'assistant',
        content: stopped.text,
        aborted: true,
        createdTime: expect.any(Number),
      });
    } finally {
      await restarted.close({ keepData: true });
    }
  });

  describe('two processes on one SQLite file', () => {
    let a: TestApp;
    let b: TestAppProcess;
    let sharedDir: string;

    // One pair of instances for these tests (each makes its own threads): a child process takes a few seconds to start.
    beforeAll(async () => {
      sharedDir = mkdtempSync(path.join(tmpdir(), 'ai-two-processes-'));
      const shared = { ...server.providerEnv('openai'), EMBEDDING_PROVIDER: 'local', DATA_DIR: sharedDir };
      a = await startTestApp(shared);
      b = await TestAppProcess.start(shared);
    });
    afterAll(async () => {
      await b.close();
      await a.close({ keepData: true });
      rmSync(sharedDir, { recursive: true, force: true });
    });

    it('roams: a thread started on A continues on B (socket) and back on A (REST)', async () => {
      server.enqueue({ text: 'A answered.' }, { text: 'B answered.' }, { text: 'A again.' });
      const started = await request(a.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: 'Question on A' })
        .expect(200);
      const threadId = started.body.threadId;

      const onB = await (await connect(b.url)).chat({ _id: 1, graphKey: GRAPH, message: 'Question on B', threadId });
      expect(onB.complete).toMatchObject({ threadId, fullText: 'B answered.' });
      expect(conversationSent(server.requests[1])).toEqual([
        'user: Question on A',
        'assistant: A answered.',
        'user: Question on B',
      ]);

      await request(a.url).post('/api/ai/chat').send({ graphKey: GRAPH, message: 'Back on A', threadId }).expect(200);
      expect(conversationSent(server.requests[2])).toEqual([
        'user: Question on A',
        'assistant: A answered.',
        'user: Question on B',
        'assistant: B answered.',
        'user: Back on A',
      ]);
      const fromB = await request(b.url).get(`/api/ai/thread/${threadId}`).expect(200);
      expect(fromB.body.messages.filter((message: { role: string }) => message.role !== 'event')).toHaveLength(6);
    });

    it('answers thread_busy on B while A streams on the thread (HTTP 409 and ai:error), and lets B in once A is done', async () => {
      server.enqueue(
        { text: 'Hello from A.' },
        { text: 'A is streaming forever', chunkSize: 3, hangAfterChunks: 3 },
        { text: 'B got in.' },
      );
      const clientA = await connect(a.url);
      const threadId = (await clientA.chat({ _id: 1, graphKey: GRAPH, message: 'Hello' })).complete!.threadId;
      clientA.socket.emit('ai:chat', { _id: 2, graphKey: GRAPH, message: 'Stream something long', threadId });
      await clientA.firstToken(2);

      const http = await request(b.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: 'Me too', threadId })
        .expect(409);
      expect(http.body).toMatchObject({ code: 'thread_busy', retryable: true });
      const socketB = await (await connect(b.url)).chat({ _id: 1, graphKey: GRAPH, message: 'Me too', threadId });
      expect(socketB.names).toEqual(['ai:thread', 'ai:error']);
      expect(socketB.error).toMatchObject({ _id: 1, code: 'thread_busy', retryable: true });
      expect(server.requests).toHaveLength(2);

      clientA.interrupt(2);
      expect((await clientA.terminalOf(2)).complete).toMatchObject({ aborted: true });
      await server.waitForClientClose(1);
      const after = await request(b.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: 'Now?', threadId })
        .expect(200);
      expect(after.body.message).toBe('B got in.');
    });

    it('applies a proposal once when A and B resume it at the same time: the other gets 409', async () => {
      server.enqueue(
        { text: 'Proposal.', toolCalls: [proposeNode('log-race')] },
        { text: 'Applied.', chunkSize: 2, delayMs: 20 },
      );
      const asked = await request(a.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: 'Add a log node' })
        .expect(200);
      const body = { threadId: asked.body.threadId, approved: true };
      const answers = await Promise.all([
        request(a.url).post('/api/ai/resume').send(body),
        request(b.url).post('/api/ai/resume').send(body),
      ]);

      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      expect(['thread_busy', 'conflict']).toContain(answers.find((answer) => answer.status === 409)!.body.code);
      expect(await nodeCount(a.url, 'log-race')).toBe(1);
      expect(server.requests).toHaveLength(2);
    });
  });
});

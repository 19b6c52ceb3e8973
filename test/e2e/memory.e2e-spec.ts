import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AiApiError, AiRestClient } from '../../client/src/ai-rest.client';
import { MemoryController } from '../../src/memory/http/memory.controller';
import type { MemoryRepository } from '../../src/memory/memory.repository';
import { MEMORY_REPOSITORY } from '../../src/memory/memory-repository.token';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
const SECRET = 'memory-e2e-secret-of-enough-length';
const bearer = (sub: string, workspace = 'default', role = 'editor') =>
  `Bearer ${jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 })}`;
const alice = bearer('alice');
/** What the Nodius sync server posts the change feed with here (an admin JWT). */
const syncServer = bearer('sync', 'default', 'admin');

/** Answers chat requests with a text naming nodes, and summary requests with a structured summary. */
function scripted(request: RecordedRequest): ScriptedTurn {
  const tools: string[] = (request.body?.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
  if (tools.includes('record_summary')) {
    return {
      toolCalls: [
        {
          name: 'record_summary',
          arguments: {
            summary: 'The user reviewed how fetch-api feeds filter-active.',
            nodesMentioned: ['fetch-api', 'filter-active', 'ghost-node'],
            keyFindings: ['fetch-api has no retry'],
            toolsUsed: [],
            topics: ['nba api'],
          },
        },
      ],
    };
  }
  const question =
    [...request.body.messages].reverse().find((message: { role: string }) => message.role === 'user')?.content ?? '';
  return {
    text: `About "${question}": fetch-api calls the NBA stats API and filter-active keeps the active players. ${'It is solid. '.repeat(20)}`,
  };
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

describe(`${MemoryController.name} (GET /api/ai/thread/:threadId/memory, end to end)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let threadId: string;

  const memoryOf = (query = '', token = alice) =>
    request(app.url).get(`/api/ai/thread/${threadId}/memory${query}`).set('authorization', token);
  const chatCalls = () => server.requests.filter((recorded) => recorded.endpoint === 'openai.chat');

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    server.enqueue(...Array.from({ length: 40 }, () => scripted));
    app = await startTestApp({
      ...server.providerEnv('openai'),
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      EMBEDDING_PROVIDER: 'local',
      MEMORY_L1_EVERY_CHARS: '1000',
    });
    for (const message of [
      'What does fetch-api do?',
      'And filter-active, what does it keep?',
      'Does fetch-api retry on errors?',
    ]) {
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .set('authorization', alice)
        .send({ graphKey: GRAPH, message, ...(threadId ? { threadId } : {}) })
        .expect(200);
      threadId = answer.body.threadId;
    }
    // Written in the background after each answer: three turns, and a summary of them (over 1,000 characters).
    await until(
      async () => (await memoryOf()).body as Array<{ level: number }>,
      (records) =>
        records.filter((record) => record.level === 0).length === 3 && records.some((record) => record.level === 1),
    );
  });

  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('lists the thread’s memory oldest first, in the shape of docs/protocol.md §8.6', async () => {
    const { body } = await memoryOf().expect(200);
    const turns = body.filter((record: { level: number }) => record.level === 0);
    expect(turns[0]).toEqual({
      memoryId: expect.stringMatching(/^mem0_[0-9a-f]{32}$/),
      level: 0,
      createdTime: expect.any(Number),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/),
      text: expect.stringMatching(/^User: What does fetch-api do\?\nAssistant: About "What does fetch-api do\?"/),
      nodesMentioned: ['fetch-api', 'filter-active'],
      keyFindings: [],
      charRange: [0, expect.any(Number)],
      parentIds: [],
      stale: false,
    });
    expect(new Date(turns[0].createdAt).getTime()).toBe(turns[0].createdTime);
    const summary = body.find((record: { level: number }) => record.level === 1);
    expect(summary).toMatchObject({
      text: 'The user reviewed how fetch-api feeds filter-active.',
      nodesMentioned: ['fetch-api', 'filter-active'], // the invented ghost-node is dropped
      keyFindings: ['fetch-api has no retry'],
      parentIds: turns.slice(0, summary.parentIds.length).map((turn: { memoryId: string }) => turn.memoryId),
      charRange: [0, expect.any(Number)],
    });
    const times = body.map((record: { createdTime: number }) => record.createdTime);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // The summary call's usage is in the thread's usage.
    const thread = await request(app.url).get(`/api/ai/thread/${threadId}`).set('authorization', alice).expect(200);
    expect(thread.body.usage.llmCalls).toBe(chatCalls().length);
  });

  it('filters by level and by an inclusive time window, in epoch milliseconds or ISO 8601', async () => {
    const all = (await memoryOf().expect(200)).body as Array<{ level: number; createdTime: number; createdAt: string }>;
    expect((await memoryOf('?level=0').expect(200)).body).toHaveLength(3);
    expect((await memoryOf('?level=1').expect(200)).body.every((record: { level: number }) => record.level === 1)).toBe(
      true,
    );
    expect((await memoryOf('?level=2').expect(200)).body).toEqual([]);
    const second = all.filter((record) => record.level === 0)[1];
    const since = (await memoryOf(`?level=0&since=${second.createdTime}`).expect(200)).body;
    expect(since.map((record: { createdTime: number }) => record.createdTime)).toEqual(
      all
        .filter((record) => record.level === 0)
        .slice(1)
        .map((record) => record.createdTime),
    );
    const iso = (
      await memoryOf(
        `?level=0&since=${encodeURIComponent(second.createdAt)}&until=${encodeURIComponent(second.createdAt)}`,
      ).expect(200)
    ).body;
    expect(iso).toEqual([expect.objectContaining({ createdTime: second.createdTime })]);
    expect((await memoryOf('?until=1000').expect(200)).body).toEqual([]);
  });

  it('is read with the same filters through the client package (AiRestClient.getMemory)', async () => {
    const client = new AiRestClient({ url: app.url, token: alice.slice('Bearer '.length) });
    const all = (await memoryOf().expect(200)).body as Array<{
      memoryId: string;
      level: number;
      createdTime: number;
      createdAt: string;
    }>;
    expect((await client.getMemory(threadId)).map((record) => record.memoryId)).toEqual(
      all.map((record) => record.memoryId),
    );
    const turns = all.filter((record) => record.level === 0);
    const second = turns[1];
    expect(
      (await client.getMemory(threadId, { level: 0, since: second.createdTime })).map((record) => record.createdTime),
    ).toEqual(turns.slice(1).map((record) => record.createdTime));
    expect(
      await client.getMemory(threadId, { level: 0, since: new Date(second.createdTime), until: second.createdAt }),
    ).toEqual([expect.objectContaining({ memoryId: second.memoryId })]);
    const refused = await client.getMemory(threadId, { since: 2000, until: 1000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AiApiError);
    expect(refused).toMatchObject({ statusCode: 400, code: 'bad_request' });
  });

  it('refuses unknown parameters and bad values, and hides the thread from anyone but its owner', async () => {
    for (const query of [
      '?level=3',
      '?level=one',
      '?since=yesterday',
      '?since=2025-13-45',
      '?until=-5',
      '?since=2000&until=1000',
      '?page=2',
    ]) {
      const response = await memoryOf(query).expect(400);
      expect(response.body).toMatchObject({ statusCode: 400, code: 'bad_request' });
    }
    await memoryOf('', bearer('bob')).expect(404);
    await memoryOf('', bearer('alice', 'globex')).expect(404);
    await request(app.url).get(`/api/ai/thread/${threadId}/memory`).expect(401);
  });

  it('marks stale, with no model call, what mentions a node edited through the change feed', async () => {
    const calls = chatCalls().length;
    const graph = await request(app.url).get(`/api/graphs/${GRAPH}`).set('authorization', alice).expect(200);
    const fetchApi = graph.body.nodes.find((node: { _key: string }) => node._key === 'fetch-api');
    await request(app.url)
      .post(`/api/graphs/${GRAPH}/changes`)
      .set('authorization', syncServer)
      .send({ upsertNodes: [{ ...fetchApi, process: 'return fetch(url, { retries: 3 });' }], saved: true })
      .expect(202);
    const records = await until(
      async () => (await memoryOf()).body as Array<{ nodesMentioned: string[]; stale: boolean }>,
      (list) => list.filter((record) => record.nodesMentioned.includes('fetch-api')).every((record) => record.stale),
    );
    expect(
      records.filter((record) => !record.nodesMentioned.includes('fetch-api')).every((record) => !record.stale),
    ).toBe(true);
    expect(chatCalls()).toHaveLength(calls);
  });

  it('deletes the memory with the thread', async () => {
    const repository = app.app.get<MemoryRepository>(MEMORY_REPOSITORY, { strict: false });
    expect((await repository.list('default', threadId)).length).toBeGreaterThan(0);
    await request(app.url).delete(`/api/ai/thread/${threadId}`).set('authorization', alice).expect(204);
    await memoryOf().expect(404);
    expect(await repository.list('default', threadId)).toEqual([]);
  });
});

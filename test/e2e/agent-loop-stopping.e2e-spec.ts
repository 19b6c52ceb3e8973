import request from 'supertest';
import { LogEntry } from '../../src/observability/log-entry';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { AiSocketClient } from '../support/ai-socket.client';
import { PrometheusSamples } from '../support/prometheus-samples';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
const detail = (id: string, nodeKey: string) => ({ id, name: 'read_node_detail', arguments: { nodeKey } });

async function scrape(app: TestApp): Promise<PrometheusSamples> {
  return new PrometheusSamples((await request(app.url).get('/metrics').expect(200)).text);
}

/**
 * Seed 003 as a user of the service meets it (docs/agent.md): a model going round in circles is
 * stopped and still answers; the tool calls of one reply are capped; why runs stop and how efficient
 * their answers are shows on /metrics; `ai:thread` means the question is stored; an upstream error's
 * log names the thread.
 */
describe('The agent loop end to end: smart stopping, limits, stop reasons and the stored question', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let client: AiSocketClient;
  let logs: LogEntry[];
  let id = 0;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      AI_MAX_TOOL_CALLS_PER_REPLY: '2',
    });
    client = await AiSocketClient.connect(app.url);
  });
  afterAll(async () => {
    client.close();
    await app.close();
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  it('stops a model that repeats its call, answers from what it has, and counts the stop reason and the efficiency', async () => {
    const before = await scrape(app);
    server.enqueue(
      { text: 'Let me check.', toolCalls: [detail('c1', 'fetch-api')] },
      { toolCalls: [detail('c2', 'fetch-api')] },
      { text: 'fetch-api calls the NBA stats API.' },
    );
    const answer = await client.chat({ _id: ++id, graphKey: GRAPH, message: 'What does fetch-api do?' });

    expect(answer.complete?.fullText).toBe('Let me check.\n\nfetch-api calls the NBA stats API.');
    expect(answer.names.filter((name) => name === 'ai:tool_start')).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2].body.tools).toBeUndefined();

    const after = await scrape(app);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      after.sum(name, labels) - before.sum(name, labels);
    expect(delta('graph_ai_agent_runs_total', { kind: 'chat', stop_reason: 'no_progress' })).toBe(1);
    expect(delta('graph_ai_agent_answer_rounds_count')).toBe(1);
    expect(delta('graph_ai_agent_answer_rounds_sum')).toBe(2);
    expect(delta('graph_ai_agent_answer_tool_calls_sum')).toBe(2);
    // 2 rounds of AI_MAX_TOOL_ROUNDS=5 with 1 result: ½ × 60 + min(50, 25) = 55 %.
    expect(delta('graph_ai_agent_answer_efficiency_percent_sum')).toBe(55);
    expect(after.typeOf('graph_ai_agent_answer_efficiency_percent')).toBe('histogram');
  });

  it('runs at most AI_MAX_TOOL_CALLS_PER_REPLY calls of a reply: the others come back to the model as errors', async () => {
    server.enqueue(
      { toolCalls: [detail('c1', 'fetch-api'), detail('c2', 'root'), detail('c3', 'return')] },
      { text: 'Read two of them.' },
    );
    const answer = await client.chat({ _id: ++id, graphKey: GRAPH, message: 'Read three nodes' });

    expect(answer.names.filter((name) => name === 'ai:tool_start')).toHaveLength(2);
    const third = server.requests[1].body.messages.find(
      (message: { tool_call_id?: string }) => message.tool_call_id === 'c3',
    );
    expect(JSON.parse(third.content)).toEqual({
      status: 'error',
      message: expect.stringContaining('at most 2 tool calls'),
    });
    const thread = (await request(app.url).get(`/api/ai/thread/${answer.complete!.threadId}`).expect(200)).body;
    expect(thread.messages.filter((message: { role: string }) => message.role === 'tool')).toHaveLength(3);
  });

  it('stores the question before ai:thread: the thread holds it the moment the client hears of it', async () => {
    server.enqueue({ text: 'A slow answer that takes its time to stream.', chunkSize: 4, delayMs: 40 });
    const requestId = ++id;
    client.socket.emit('ai:chat', { _id: requestId, graphKey: GRAPH, message: 'Is my question kept?' });
    await client.waitUntil(() => client.eventsOf(requestId).some((event) => event.event === 'ai:thread'));
    const threadId = (client.eventsOf(requestId)[0].payload as { threadId: string }).threadId;
    expect(client.eventsOf(requestId).map((event) => event.event)).not.toContain('ai:token');
    const stored = (await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200)).body;
    expect(stored.messages.filter((message: { role: string }) => message.role !== 'event')).toEqual([
      { id: expect.any(String), role: 'user', content: 'Is my question kept?', createdTime: expect.any(Number) },
    ]);
    expect((await client.terminalOf(requestId)).complete?.fullText).toBe(
      'A slow answer that takes its time to stream.',
    );
  });

  it('answers a busy thread with ai:thread then thread_busy, and stores nothing of the refused question', async () => {
    server.enqueue({ text: 'Holding the thread for a while.', chunkSize: 4, delayMs: 40 });
    const first = ++id;
    client.socket.emit('ai:chat', { _id: first, graphKey: GRAPH, message: 'First' });
    await client.firstToken(first);
    const threadId = (client.eventsOf(first)[0].payload as { threadId: string }).threadId;

    const second = await client.chat({ _id: ++id, graphKey: GRAPH, threadId, message: 'Second, too early' });
    expect(second.names).toEqual(['ai:thread', 'ai:error']);
    expect(second.error).toMatchObject({ code: 'thread_busy', retryable: true });
    await client.terminalOf(first);
    const stored = (await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200)).body;
    const said = stored.messages
      .filter((message: { role: string }) => message.role !== 'event')
      .map((message: { content: string }) => message.content);
    expect(said).toEqual(['First', 'Holding the thread for a while.']);
  });

  it('names the thread in the llm_error log of a failed upstream call', async () => {
    server.enqueue({ error: { status: 401, message: 'Incorrect API key provided' } });
    const failed = await client.chat({ _id: ++id, graphKey: GRAPH, message: 'Hello?' });
    expect(failed.error).toMatchObject({ code: 'auth_error' });
    const threadId = (failed.events[0].payload as { threadId: string }).threadId;
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'error', event: 'llm_error', code: 'auth_error', threadId }),
    );
  });
});

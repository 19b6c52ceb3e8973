import request from 'supertest';
import { AiGateway } from '../../src/ai/socket/ai.gateway';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';

const readFetchApi = { id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } };
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

/** Polls GET /api/ai/thread/:id until `check` holds (the run commits its partial text as it unwinds). */
async function threadWhen(app: TestApp, threadId: string, check: (thread: any) => boolean): Promise<any> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200);
    if (check(response.body)) return response.body;
    if (Date.now() > deadline)
      throw new Error(`thread ${threadId} never matched: ${JSON.stringify(response.body.messages)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(`${AiGateway.name} (Socket.IO /ai, end to end)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const clients: AiSocketClient[] = [];

  const connect = async (options: Parameters<typeof AiSocketClient.connect>[1] = {}) => {
    const client = await AiSocketClient.connect(app.url, options);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    // Streams give way from 8 runs waiting (128 by default), so a burst of 40 shows it.
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AI_SETUP_FIRST_MIN_WAITING: '8',
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  beforeEach(() => server.reset());
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it.each([['websocket'], ['polling']] as const)(
    "refuses a foreign page's socket over %s in the default AUTH_MODE=none; its own origin and non-browser clients connect",
    async (transport) => {
      const refused = await AiSocketClient.connect(app.url, {
        transports: [transport],
        headers: { Origin: 'https://evil.example' },
      }).then(
        (client) => {
          client.close();
          return null;
        },
        (error: Error & { data?: { code: string; message: string } }) => error,
      );
      expect(refused?.message).toBe('forbidden');
      expect(refused?.data).toEqual({ code: 'forbidden', message: expect.stringContaining('SOCKET_CORS_ORIGINS') });

      const own = await connect({ transports: [transport], headers: { Origin: new URL(app.url).origin } });
      server.enqueue({ text: 'Hello.' });
      expect((await own.chat({ _id: 1, graphKey: GRAPH, message: 'Hi' })).complete?.fullText).toBe('Hello.');
      expect((await connect({ transports: [transport] })).socket.connected).toBe(true);
    },
  );

  it('runs the whole human-in-the-loop round trip: tokens and a read tool stream in, a proposal interrupts, approval adds the node', async () => {
    server.enqueue(
      { text: 'Let me read fetch-api first. ', chunkSize: 3, toolCalls: [readFetchApi] },
      { text: 'Its failures are not logged; I propose a log node.', chunkSize: 3, toolCalls: [proposeLogNode] },
      { text: 'Done: log-errors now exists.', chunkSize: 3 },
    );
    const client = await connect({ transports: ['polling', 'websocket'] });

    const asked = await client.chat({
      _id: 1,
      graphKey: GRAPH,
      message: 'Does fetch-api log its errors? If not, add a node for it.',
    });
    expect(asked.names[0]).toBe('ai:thread');
    expect(asked.names.at(-1)).toBe('ai:complete');
    expect(asked.names.filter((name) => name === 'ai:complete' || name === 'ai:error')).toHaveLength(1);
    const toolStart = asked.names.indexOf('ai:tool_start');
    const toolResult = asked.names.indexOf('ai:tool_result');
    expect(asked.names.slice(1, toolStart)).toContain('ai:token');
    expect(toolResult).toBeGreaterThan(toolStart);
    expect(asked.names.slice(toolResult)).toContain('ai:token');
    expect(asked.events[toolStart].payload).toEqual({
      _id: 1,
      seq: toolStart + 1,
      toolCallId: 'call_read',
      toolName: 'read_node_detail',
    });
    // docs/protocol.md §8.7: every event of the request carries seq 1, 2, 3, …
    expect(asked.events.map((event) => (event.payload as { seq?: number }).seq)).toEqual(
      asked.events.map((_, index) => index + 1),
    );
    expect((asked.events[toolResult].payload as { result: string }).result).toContain('fetch-api');

    const complete = asked.complete!;
    const threadId = (asked.events[0].payload as { threadId: string }).threadId;
    expect(threadId).toMatch(/^ai_/);
    expect(complete.threadId).toBe(threadId);
    expect(complete.fullText).toBe('Let me read fetch-api first. Its failures are not logged; I propose a log node.');
    expect(complete.fullText).toBe(asked.text);
    expect(complete.aborted).toBeUndefined();
    expect(complete.usage).toMatchObject({ llmCalls: 2 });
    expect(complete.interrupt).toMatchObject({
      kind: 'approval',
      toolCallId: 'call_create',
      proposedAction: { type: 'create_node', payload: { nodeKey: 'log-errors', typeKey: 'log-node' } },
      preview: { nodesToCreate: [expect.objectContaining({ _key: 'log-errors' })] },
    });

    const resumed = await client.resume({ _id: 2, threadId, approved: true });
    expect(resumed.names[0]).toBe('ai:thread');
    expect(resumed.events[0].payload).toEqual({ _id: 2, seq: 1, threadId });
    expect(resumed.events[1].payload).toEqual({
      _id: 2,
      seq: 2,
      toolCallId: 'call_create',
      toolName: 'propose_create_node',
    });
    expect(JSON.parse((resumed.events[2].payload as { result: string }).result)).toMatchObject({ status: 'approved' });
    expect(resumed.complete).toMatchObject({ _id: 2, threadId, fullText: 'Done: log-errors now exists.' });
    expect(resumed.complete!.interrupt).toBeUndefined();

    const graph = await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200);
    expect(graph.body.nodes.filter((node: { _key: string }) => node._key === 'log-errors')).toHaveLength(1);
    // Nothing for either request after its terminal event.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.eventsOf(1)).toHaveLength(asked.events.length);
    expect(client.eventsOf(2)).toHaveLength(resumed.events.length);
  });

  it('checks a proposal against the graph before asking: an unknown sheet goes back to the model, a sheet named as in the context is applied on its id', async () => {
    const onSheet = (id: string, sheet: string) => ({
      ...proposeLogNode,
      id,
      arguments: { ...proposeLogNode.arguments, nodeKey: 'log-sorted', sheet },
    });
    server.enqueue(
      { toolCalls: [onSheet('call_bad', 'errors')] },
      { text: 'On data-processing then.', toolCalls: [onSheet('call_fixed', 'data-processing')] },
      { text: 'Added.' },
    );
    const client = await connect();

    const asked = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Add a node that logs the sorted stats' });
    // The refused call is not shown: no tool events, and the model got the valid sheets to correct it.
    expect(asked.names).not.toContain('ai:tool_start');
    const refusal = (server.requests[1].body.messages as Array<{ tool_call_id?: string; content: string }>).find(
      (message) => message.tool_call_id === 'call_bad',
    );
    expect(JSON.parse(refusal!.content).message).toContain(
      'Valid sheets (id and name): "0" (main), "1" (data-processing)',
    );
    expect(asked.complete!.interrupt).toMatchObject({
      toolCallId: 'call_fixed',
      proposedAction: { payload: { sheet: '1' } },
    });

    const resumed = await client.resume({ _id: 2, threadId: asked.complete!.threadId, approved: true });
    expect(resumed.complete!.fullText).toBe('Added.');
    const graph = await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200);
    expect(graph.body.nodes.find((node: { _key: string }) => node._key === 'log-sorted')).toMatchObject({ sheet: '1' });
  });

  it('coalesces fragments: fewer ai:token events than upstream deltas, and together exactly the text', async () => {
    const text =
      'The graph starts at root, calls the NBA stats API in fetch-api, filters active players and renders them. '.repeat(
        5,
      );
    server.enqueue({ text, chunkSize: 1 });
    const client = await connect();
    const answer = await client.chat({ _id: 7, graphKey: GRAPH, message: 'Summarize the graph' });
    expect(answer.text).toBe(text);
    expect(answer.complete!.fullText).toBe(text);
    expect(answer.tokenEvents).toBeGreaterThan(0);
    expect(answer.tokenEvents).toBeLessThan(text.length / 4);
  });

  it('sets a burst of new conversations up before relaying the streams already running (docs/agent.md, "A burst of new conversations")', async () => {
    const text = 'The graph calls the NBA stats API, filters the active players and renders them.';
    const burst = 40;
    for (let index = 0; index < burst; index++) server.enqueue({ text, chunkSize: 1 });
    const client = await connect();
    let askedAtFirstEnd: number | undefined;
    client.socket.on('ai:complete', () => {
      askedAtFirstEnd ??= server.requests.length;
    });
    const answers = await Promise.all(
      Array.from({ length: burst }, (_, index) =>
        client.chat({ _id: 100 + index, graphKey: GRAPH, message: 'Summarize the graph' }, 20_000),
      ),
    );
    for (const answer of answers) {
      expect(answer.error).toBeUndefined();
      expect(answer.text).toBe(text);
      expect(answer.complete!.fullText).toBe(text);
    }
    expect(server.requests).toHaveLength(burst);
    // While more than 8 conversations waited for their setup, the ones set up before relayed only their
    // first chunk: most of the burst had asked the model before the first one ended (24 of 40 here; 2 with
    // AI_SETUP_FIRST_MAX_MS=0, the streams sharing the process evenly with the setups).
    expect(askedAtFirstEnd).toBeGreaterThanOrEqual(burst / 2);
  });

  it('streams over the polling transport alone', async () => {
    server.enqueue({ text: 'Polling works too.', chunkSize: 2 });
    const client = await connect({ transports: ['polling'] });
    const answer = await client.chat({ _id: 1, graphKey: GRAPH, message: 'hi' });
    expect(answer.names[0]).toBe('ai:thread');
    expect(answer.complete!.fullText).toBe('Polling works too.');
    expect(answer.text).toBe('Polling works too.');
  });

  it('stops a generation on ai:interrupt: the upstream request is cancelled and the partial text is kept in the thread', async () => {
    server.enqueue({
      text: 'fetch-api calls the NBA stats API and then it goes on and on',
      chunkSize: 5,
      hangAfterChunks: 4,
    });
    const client = await connect();
    client.socket.emit('ai:chat', { _id: 3, graphKey: GRAPH, message: 'Explain fetch-api at length' });
    await client.firstToken(3);
    client.interrupt(3);

    const stopped = await client.terminalOf(3);
    expect(stopped.complete).toMatchObject({ _id: 3, aborted: true });
    expect(stopped.complete!.fullText).toBe(stopped.text);
    expect(stopped.text.length).toBeGreaterThan(0);
    expect('fetch-api calls the NBA stats API and then it goes on and on'.startsWith(stopped.text)).toBe(true);
    await server.waitForClientClose(0);

    const thread = await threadWhen(app, stopped.complete!.threadId, (body) => body.messages.at(-1)?.aborted === true);
    expect(thread.messages.at(-1)).toMatchObject({ role: 'assistant', content: stopped.text, aborted: true });
  });

  it('applies an ai:interrupt sent right behind its ai:chat (requests are queued in arrival order): the run ends aborted, no upstream call', async () => {
    const client = await connect();
    client.socket.emit('ai:chat', { _id: 4, graphKey: GRAPH, message: 'Explain fetch-api at length' });
    client.interrupt(4);

    const stopped = await client.terminalOf(4);
    // The question was stored before the stop took effect: its DATA_ADDED event with it.
    expect(stopped.names).toEqual(['ai:thread', 'ai:event', 'ai:complete']);
    expect(stopped.complete).toMatchObject({ _id: 4, aborted: true, fullText: '' });
    expect(server.requests).toHaveLength(0);
  });

  it('stops every running generation of a socket that disconnects, cancelling upstream and keeping the partial text', async () => {
    server.enqueue({
      text: 'The error-handler node receives the failures of fetch-api',
      chunkSize: 6,
      hangAfterChunks: 3,
    });
    const client = await connect();
    client.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'What handles errors?' });
    await client.firstToken(1);
    const threadId = (client.eventsOf(1)[0].payload as { threadId: string }).threadId;
    client.close();

    await server.waitForClientClose(0);
    const thread = await threadWhen(app, threadId, (body) => body.messages.at(-1)?.aborted === true);
    expect(thread.messages.at(-1).role).toBe('assistant');
    expect('The error-handler node receives the failures of fetch-api'.startsWith(thread.messages.at(-1).content)).toBe(
      true,
    );
    expect(thread.messages.at(-1).content.length).toBeGreaterThan(0);
  });

  it.each([
    ['an unknown field', { _id: 11, graphKey: GRAPH, message: 'hi', color: 'red' }, 11],
    ['a missing message', { _id: 12, graphKey: GRAPH }, 12],
    ['a string _id', { _id: '13', graphKey: GRAPH, message: 'hi' }, null],
    ['no _id', { graphKey: GRAPH, message: 'hi' }, null],
    ['a non-object payload', 'hello', null],
  ])('answers ai:chat with %s by ai:error bad_request (and no LLM call)', async (_name, payload, id) => {
    const client = await connect();
    client.emitRaw('ai:chat', payload);
    const failed = await client.terminalOf(id);
    expect(failed.names).toEqual(['ai:error']);
    expect(failed.error).toMatchObject({ _id: id, code: 'bad_request', retryable: false });
    expect(failed.error!.error).toMatch(/^The request is invalid\./);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a second request with the _id of a running one (ai:error with _id null); the running one still ends once', async () => {
    server.enqueue({ text: 'Slowly answering', chunkSize: 4, delayMs: 30 });
    const client = await connect();
    client.socket.emit('ai:chat', { _id: 5, graphKey: GRAPH, message: 'first' });
    await client.firstToken(5);
    client.socket.emit('ai:chat', { _id: 5, graphKey: GRAPH, message: 'second' });
    const duplicate = await client.terminalOf(null);
    expect(duplicate.error).toMatchObject({ _id: null, code: 'bad_request' });
    const first = await client.terminalOf(5);
    expect(first.complete!.fullText).toBe('Slowly answering');
    expect(first.names.filter((name) => name === 'ai:complete' || name === 'ai:error')).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('ignores ai:interrupt for a request that is not running, and rejects a malformed one with _id null', async () => {
    const client = await connect();
    client.interrupt(99);
    client.emitRaw('ai:interrupt', { _id: 98, extra: true });
    const malformed = await client.terminalOf(null);
    expect(malformed.error).toMatchObject({ _id: null, code: 'bad_request' });
    expect(client.eventsOf(99)).toHaveLength(0);
    expect(client.eventsOf(98)).toHaveLength(0);
  });

  it('answers a second message on a busy thread with ai:error thread_busy (retryable) after ai:thread', async () => {
    server.enqueue({ text: 'first answer', chunkSize: 4 }, { text: 'never ends', chunkSize: 2, hangAfterChunks: 2 });
    const client = await connect();
    const first = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Hello' });
    const threadId = first.complete!.threadId;

    client.socket.emit('ai:chat', { _id: 2, graphKey: GRAPH, message: 'Tell me more', threadId });
    await client.firstToken(2);
    const busy = await client.chat({ _id: 3, graphKey: GRAPH, message: 'Are you there?', threadId });
    expect(busy.names).toEqual(['ai:thread', 'ai:error']);
    expect(busy.error).toMatchObject({ _id: 3, code: 'thread_busy', retryable: true });

    client.interrupt(2);
    expect((await client.terminalOf(2)).complete).toMatchObject({ aborted: true });
    expect(server.requests).toHaveLength(2);
  });

  it('answers an unknown or foreign thread with ai:error not_found (an ai:resume after its ai:thread, as always)', async () => {
    const client = await connect();
    const chat = await client.chat({
      _id: 1,
      graphKey: GRAPH,
      message: 'hi',
      threadId: 'ai_doesnotexist0000000000000',
    });
    expect(chat.error).toMatchObject({ _id: 1, code: 'not_found', retryable: false });
    const resume = await client.resume({ _id: 2, threadId: 'ai_doesnotexist0000000000000', approved: true });
    expect(resume.names).toEqual(['ai:thread', 'ai:error']);
    expect(resume.events[0].payload).toEqual({ _id: 2, seq: 1, threadId: 'ai_doesnotexist0000000000000' });
    expect(resume.error).toMatchObject({ _id: 2, code: 'not_found' });
    const tooLong = await client.resume({
      _id: 4,
      threadId: 'ai_doesnotexist0000000000000',
      approved: false,
      feedback: 'x'.repeat(16_001),
    });
    expect(tooLong.names).toEqual(['ai:thread', 'ai:error']);
    expect(tooLong.error).toMatchObject({ _id: 4, code: 'payload_too_large' });
    const graph = await client.chat({ _id: 3, graphKey: 'no-such-graph', message: 'hi' });
    expect(graph.error).toMatchObject({ _id: 3, code: 'not_found' });
  });

  it('sends a classified upstream failure as ai:error with the localized text', async () => {
    server.enqueue({ error: { status: 401, message: 'Incorrect API key provided' } });
    const client = await connect();
    const failed = await client.chat({ _id: 4, graphKey: GRAPH, message: 'hi' });
    expect(failed.names).toEqual(['ai:thread', 'ai:event', 'ai:error']);
    expect(failed.error).toMatchObject({ _id: 4, code: 'auth_error', retryable: false });
    expect(failed.error!.error).toBe(
      'The AI service rejected our credentials. An administrator needs to check the API key.',
    );
  });
});

import * as diagnostics from 'node:diagnostics_channel';
import { AgentHarness, RecordingSink } from '../../../test/support/agent.harness';
import { RecordedRequest, ScriptedLlmServer } from '../../../test/support/scripted-llm-server';
import { Principal } from '../../auth/principal';
import { AppError } from '../../errors/app-error';
import { nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { AskQuestion } from './ask-question.use-case';

const GRAPH = 'nba-workflow';
const editor: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };
const viewer: Principal = { userId: 'victor', workspace: 'default', role: 'viewer' };

type WireMessage = { role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

const messagesOf = (request: RecordedRequest): WireMessage[] => request.body.messages;
const toolNamesOf = (request: RecordedRequest): string[] =>
  (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
const signal = () => new AbortController().signal;

describe(AskQuestion.name, () => {
  let server: ScriptedLlmServer;
  let harness: AgentHarness;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    harness = await AgentHarness.create({ env: server.providerEnv('openai') });
  });
  afterEach(async () => {
    await harness.close();
  });

  it('answers a question: ai:thread first, tokens in order, one complete; stores prompt, context, question and answer', async () => {
    server.enqueue({
      text: 'fetch-api calls the NBA stats API.',
      chunkSize: 6,
      usage: { prompt: 900, completion: 9, cached: 0 },
    });
    const sink = new RecordingSink();
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'What does fetch-api do?' },
      sink,
      signal(),
    );

    expect(result).toMatchObject({ type: 'message', message: 'fetch-api calls the NBA stats API.', toolCalls: [] });
    expect(result.threadId).toMatch(/^ai_/);
    expect(sink.types[0]).toBe('thread');
    expect(sink.types.at(-1)).toBe('complete');
    expect(sink.types.filter((type) => type === 'complete')).toHaveLength(1);
    expect(sink.text).toBe(result.message);
    expect(sink.completed).toEqual(result);
    expect(result.usage).toMatchObject({ promptTokens: 900, completionTokens: 9, llmCalls: 1 });

    // The three stable prompt levels (instructions, workspace types, graph state), the question, its DATA_ADDED event as a
    // [SYSTEM] line, then its context.
    const sent = messagesOf(server.requests[0]);
    expect(sent.map((message) => message.role)).toEqual(['system', 'system', 'system', 'user', 'system', 'system']);
    expect(sent[0].content).toMatch(/^You are an AI assistant/);
    expect(sent[1].content).toContain('Custom types of this workspace:');
    expect(sent[2].content).toContain('NBA stats workflow');
    expect(sent[3].content).toBe('What does fetch-api do?');
    expect(String(sent[4].content)).toMatch(/^\[SYSTEM\] Loaded \d+ nodes? and \d+ edges? into the context/);
    expect(String(sent[5].content)).toMatch(/^\[RAG context for this question\]/);
    expect(String(sent[5].content)).toContain('fetch-api');

    const thread = await harness.threadService.load(editor, result.threadId);
    expect(thread.title).toBe('What does fetch-api do?');
    // The question is stored first (before ai:thread), its context and DATA_ADDED event right after it.
    expect(thread.messages.map((message) => message.kind ?? message.role)).toEqual([
      'system_prompt',
      'user',
      'rag_context',
      'event',
      'assistant',
    ]);
    expect(thread.usage).toMatchObject({ promptTokens: 900, completionTokens: 9, llmCalls: 1 });
    expect(await harness.threadService.getWorkspaceUsage('default')).toMatchObject({ promptTokens: 900, llmCalls: 1 });
  });

  it('opens a new conversation in one store write: the thread created with its lease held and the question stored', async () => {
    server.enqueue({ text: 'It fetches.' });
    const create = jest.spyOn(harness.threadService, 'create');
    const acquireRun = jest.spyOn(harness.threadService, 'acquireRun');
    const createForRun = jest.spyOn(harness.threadService, 'createForRun');
    const atAnnounce: Array<{ revision: number; kinds: string[]; leased: boolean }> = [];
    const sink = new RecordingSink();
    const announce = sink.thread.bind(sink);
    sink.thread = (threadId: string) => {
      // What another connection sees the moment ai:thread is sent.
      const row = harness.db.prepare('SELECT revision FROM ai_threads WHERE thread_id = ?').get(threadId) as {
        revision: number;
      };
      const kinds = harness.db
        .prepare('SELECT role, message FROM ai_thread_messages WHERE thread_id = ? ORDER BY seq')
        .all(threadId) as Array<{ role: string; message: string }>;
      const leased =
        harness.db.prepare('SELECT 1 FROM ai_thread_leases WHERE thread_id = ?').get(threadId) !== undefined;
      atAnnounce.push({
        revision: row.revision,
        kinds: kinds.map(({ role, message }) => (JSON.parse(message) as { kind?: string }).kind ?? role),
        leased,
      });
      announce(threadId);
    };
    await harness.agent.chat(editor, { graphKey: GRAPH, message: 'What does fetch-api do?' }, sink, signal());

    expect(createForRun).toHaveBeenCalledTimes(1);
    expect(create).not.toHaveBeenCalled();
    expect(acquireRun).not.toHaveBeenCalled();
    // By then the context is stored too (ai:thread waits for the upstream request: HeldEventsSink).
    expect(atAnnounce).toEqual([
      { revision: 2, kinds: ['system_prompt', 'user', 'rag_context', 'event'], leased: true },
    ]);
  });

  it('sends ai:thread and the DATA_ADDED event once the upstream request is written, still before anything else', async () => {
    server.enqueue({ text: 'It fetches.' });
    const order: string[] = [];
    const created = () => order.push('upstream request');
    diagnostics.subscribe('undici:request:create', created);
    const sink = new RecordingSink();
    const thread = sink.thread.bind(sink);
    sink.thread = (threadId: string) => {
      order.push('thread');
      thread(threadId);
    };
    try {
      await harness.agent.chat(editor, { graphKey: GRAPH, message: 'What does fetch-api do?' }, sink, signal());
    } finally {
      diagnostics.unsubscribe('undici:request:create', created);
    }
    expect(order).toEqual(['upstream request', 'thread']);
    expect(sink.types.slice(0, 3)).toEqual(['thread', 'event', 'token']);
  });

  it('sends ai:thread and the DATA_ADDED event before the error of an upstream that refuses at once', async () => {
    server.enqueue({ error: { status: 401 } });
    const sink = new RecordingSink();
    await expect(
      harness.agent.chat(editor, { graphKey: GRAPH, message: 'What does fetch-api do?' }, sink, signal()),
    ).rejects.toMatchObject({ code: 'auth_error' });
    expect(sink.types).toEqual(['thread', 'event']);
  });

  it('tells a new conversation refused by the budget its thread, created empty, before the error', async () => {
    await harness.close();
    harness = await AgentHarness.create({
      env: { ...server.providerEnv('openai'), AI_MAX_TOTAL_TOKENS: '1000' },
    });
    server.enqueue({ text: 'expensive', usage: { prompt: 1500, completion: 10 } });
    await harness.agent.chat(editor, { graphKey: GRAPH, message: 'first' }, new RecordingSink(), signal());
    const sink = new RecordingSink();
    await expect(
      harness.agent.chat(editor, { graphKey: GRAPH, message: 'second' }, sink, signal()),
    ).rejects.toMatchObject({ code: 'budget_exceeded' });
    expect(sink.types).toEqual(['thread']);
    const refused = await harness.threadService.load(editor, (sink.events[0] as { threadId: string }).threadId);
    expect(refused.messages).toEqual([]);
  });

  it('stores the startup prompt on the first message only and keeps the history, with the current context after the new question', async () => {
    server.enqueue({ text: 'It fetches players.' }, { text: 'It keeps active players.' });
    const first = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'What does fetch-api do?' },
      new RecordingSink(),
      signal(),
    );
    await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'And filter-active?', threadId: first.threadId },
      new RecordingSink(),
      signal(),
    );

    const second = messagesOf(server.requests[1]);
    expect(second.map((message) => message.role)).toEqual([
      'system',
      'system',
      'system',
      'user',
      'system',
      'assistant',
      'user',
      'system',
      'system',
    ]);
    expect(second.slice(0, 3)).toEqual(messagesOf(server.requests[0]).slice(0, 3));
    expect(second[3].content).toBe('What does fetch-api do?');
    expect(second[5].content).toBe('It fetches players.');
    expect(second[6].content).toBe('And filter-active?');
    expect(String(second[8].content)).toContain('filter-active');

    const thread = await harness.threadService.load(editor, first.threadId);
    expect(thread.messages.filter((message) => message.kind === 'system_prompt')).toHaveLength(1);
    expect(thread.messages.filter((message) => message.role === 'user')).toHaveLength(2);
  });

  it('sends the stable levels of the graph as it is now, also after the graph changed', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
    const ask = () =>
      harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'What does fetch-api do?' },
        new RecordingSink(),
        signal(),
      );
    await ask();
    await ask();
    await harness.graphStore.importGraph('default', {
      ...nbaWorkflowDemo,
      graph: { ...nbaWorkflowDemo.graph, name: 'Renamed NBA flow' },
    });
    await ask();

    const prompts = server.requests.map((request) =>
      messagesOf(request)
        .slice(0, 3)
        .map((message) => String(message.content))
        .join('\n\n'),
    );
    expect(prompts[1]).toBe(prompts[0]);
    expect(prompts[0]).not.toContain('Renamed NBA flow');
    expect(prompts[2]).toContain('Renamed NBA flow');
  });

  it('runs read tools: tool_start/tool_result with the model ids, results in the next request, rounds stored', async () => {
    server.enqueue(
      {
        text: 'Checking.',
        toolCalls: [{ id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'filter-active' } }],
      },
      { text: 'It keeps players with at least 10 games.' },
    );
    const sink = new RecordingSink();
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'How does the filter work?' },
      sink,
      signal(),
    );

    const start = sink.types.indexOf('tool_start');
    expect(sink.types.slice(0, start)).toEqual(['thread', 'event', 'token', 'token', 'token']);
    expect(sink.types[start + 1]).toBe('tool_result');
    expect(sink.types.slice(start + 2, -1).every((type) => type === 'token')).toBe(true);
    expect(sink.types.at(-1)).toBe('complete');
    expect(sink.events[start]).toEqual({ type: 'tool_start', toolCallId: 'call_read', toolName: 'read_node_detail' });
    expect(sink.text).toBe(`Checking.\n\n${result.message.split('\n\n')[1]}`);
    expect(result.toolCalls).toEqual([
      { id: 'call_read', name: 'read_node_detail', arguments: '{"nodeKey":"filter-active"}', status: 'executed' },
    ]);
    const toolMessage = messagesOf(server.requests[1]).find((message) => message.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_read');
    expect(JSON.parse(String(toolMessage?.content))).toMatchObject({ key: 'filter-active', data: { minGames: 10 } });

    const thread = await harness.threadService.load(editor, result.threadId);
    expect(thread.messages.slice(3).map((message) => message.role)).toEqual([
      'event',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('offers write tools to editors only; a viewer gets the read tools and cannot answer a proposal', async () => {
    server.enqueue({ text: 'Hi editor.' }, { text: 'Hi viewer.' });
    await harness.agent.chat(editor, { graphKey: GRAPH, message: 'hello' }, new RecordingSink(), signal());
    const viewerResult = await harness.agent.chat(
      viewer,
      { graphKey: GRAPH, message: 'hello' },
      new RecordingSink(),
      signal(),
    );

    expect(toolNamesOf(server.requests[0])).toEqual(
      expect.arrayContaining(['search_nodes', 'propose_create_node', 'propose_batch']),
    );
    expect(toolNamesOf(server.requests[1])).toHaveLength(8);
    expect(toolNamesOf(server.requests[1])).toContain('ask_user');
    expect(toolNamesOf(server.requests[1]).some((name) => name.startsWith('propose_'))).toBe(false);
    expect(messagesOf(server.requests[1])[0].content).not.toBe(messagesOf(server.requests[0])[0].content);

    await expect(
      harness.agent.resume(viewer, { threadId: viewerResult.threadId, approved: true }, new RecordingSink(), signal()),
    ).rejects.toMatchObject({ code: 'conflict', statusCode: 409 });

    // A proposal made while the owner was an editor, answered once their role is viewer: refused, still pending.
    server.enqueue({
      toolCalls: [
        { id: 'c_w', name: 'propose_delete_node', arguments: { nodeKey: 'disconnected-note', reason: 'unused' } },
      ],
    });
    const demoted: Principal = { ...editor, role: 'viewer' };
    const proposal = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'Delete it' },
      new RecordingSink(),
      signal(),
    );
    await expect(
      harness.agent.resume(demoted, { threadId: proposal.threadId, approved: true }, new RecordingSink(), signal()),
    ).rejects.toMatchObject({ code: 'forbidden', statusCode: 403 });
    expect((await harness.threadService.load(editor, proposal.threadId)).pendingInterrupt).not.toBeNull();
  });

  it('makes at most maxToolRounds + 1 upstream calls, the last one without tools', async () => {
    await harness.close();
    harness = await AgentHarness.create({ env: { ...server.providerEnv('openai'), AI_MAX_TOOL_ROUNDS: '2' } });
    const overview = (id: string) => ({ toolCalls: [{ id, name: 'read_graph_overview', arguments: {} }] });
    server.enqueue(overview('o1'), overview('o2'), { text: 'The graph has 9 nodes.' });
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'Describe the graph' },
      new RecordingSink(),
      signal(),
    );

    expect(result).toMatchObject({ type: 'message', message: 'The graph has 9 nodes.' });
    expect(server.requests).toHaveLength(3);
    expect(server.requests[1].body.tools).toBeDefined();
    expect(server.requests[2].body.tools).toBeUndefined();
    expect(result.usage.llmCalls).toBe(3);
  });

  it('lets the model correct malformed tool-call JSON on the next round', async () => {
    server.enqueue(
      { toolCalls: [{ id: 'bad', name: 'search_nodes', arguments: '{"query": "filter' }] },
      (request) => {
        const error = messagesOf(request).find((message) => message.tool_call_id === 'bad');
        expect(String(error?.content)).toContain('not valid JSON');
        return { toolCalls: [{ id: 'good', name: 'search_nodes', arguments: { query: 'filter' } }] };
      },
      { text: 'Found filter-active.' },
    );
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'Find the filter' },
      new RecordingSink(),
      signal(),
    );
    expect(result.toolCalls.map((call) => [call.id, call.status])).toEqual([
      ['bad', 'error'],
      ['good', 'executed'],
    ]);
    expect(result.message).toBe('Found filter-active.');
  });

  it('answers over the Anthropic wire with the same flow (system prompt cached, tool results merged)', async () => {
    await harness.close();
    harness = await AgentHarness.create({ env: server.providerEnv('anthropic') });
    server.enqueue(
      {
        toolCalls: [{ id: 'toolu_1', name: 'list_node_edges', arguments: { nodeKey: 'fetch-api' } }],
        usage: { prompt: 1200, completion: 30, cached: 1000 },
      },
      { text: 'fetch-api has a success and an error output.', usage: { prompt: 1300, completion: 12, cached: 1000 } },
    );
    const sink = new RecordingSink();
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'Where does fetch-api go?' },
      sink,
      signal(),
    );

    expect(server.requests[0].endpoint).toBe('anthropic.messages');
    expect(server.requests[0].body.system).toBeDefined();
    expect(result.message).toBe('fetch-api has a success and an error output.');
    expect(result.usage).toMatchObject({ promptTokens: 2500, cachedTokens: 2000, completionTokens: 42, llmCalls: 2 });
    expect(result.usage.costUsd).toBeGreaterThan(0);
    expect(sink.events).toContainEqual({ type: 'tool_start', toolCallId: 'toolu_1', toolName: 'list_node_edges' });
  });

  it('answers with the offline provider from the retrieved context, without tools', async () => {
    await harness.close();
    harness = await AgentHarness.create();
    const sink = new RecordingSink();
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'fetch-api', mentions: ['fetch-api'] },
      sink,
      signal(),
    );
    expect(result.type).toBe('message');
    expect(result.message).toContain('fetch-api');
    expect(sink.text).toBe(result.message);
    expect(result.usage).toMatchObject({ totalTokens: 0, llmCalls: 1 });
    expect(server.requests).toHaveLength(0);
  });

  it("refuses bad input before doing anything: empty or too long message, unknown graph, someone else's thread", async () => {
    const sink = new RecordingSink();
    await expect(harness.agent.chat(editor, { graphKey: GRAPH, message: '   ' }, sink, signal())).rejects.toMatchObject(
      { code: 'bad_request' },
    );
    await expect(
      harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'x'.repeat(harness.config.limits.messageMaxChars + 1) },
        sink,
        signal(),
      ),
    ).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(harness.agent.chat(editor, { graphKey: 'nope', message: 'hi' }, sink, signal())).rejects.toMatchObject(
      {
        code: 'not_found',
        statusCode: 404,
      },
    );
    await expect(
      harness.agent.chat({ ...editor, workspace: 'other' }, { graphKey: GRAPH, message: 'hi' }, sink, signal()),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(sink.events).toEqual([]);

    server.enqueue({ text: 'ok' });
    const mine = await harness.agent.chat(editor, { graphKey: GRAPH, message: 'hi' }, new RecordingSink(), signal());
    const stranger: Principal = { userId: 'mallory', workspace: 'default', role: 'admin' };
    await expect(
      harness.agent.chat(
        stranger,
        { graphKey: GRAPH, message: 'hi', threadId: mine.threadId },
        new RecordingSink(),
        signal(),
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(harness.agent.getThread(stranger, mine.threadId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      harness.agent.resume(stranger, { threadId: mine.threadId, approved: true }, new RecordingSink(), signal()),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(server.requests).toHaveLength(1);
  });

  it('answers thread_busy to a second request while a run holds the thread, after telling it the thread', async () => {
    server.enqueue({ text: 'slow answer', hangAfterChunks: 2 });
    const controller = new AbortController();
    const first = harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'first' },
      new RecordingSink(),
      controller.signal,
    );
    await server.waitForRequests(1);
    const threadId = (await harness.agent.listThreads(editor, GRAPH))[0].threadId;

    const busySink = new RecordingSink();
    const busy = await harness.agent
      .chat(editor, { graphKey: GRAPH, message: 'second', threadId }, busySink, signal())
      .catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(AppError);
    expect(busy).toMatchObject({ code: 'thread_busy', statusCode: 409, retryable: true });
    expect(busySink.events).toEqual([{ type: 'thread', threadId }]);

    controller.abort();
    await first;
    server.enqueue({ text: 'now free' });
    await expect(
      harness.agent.chat(editor, { graphKey: GRAPH, message: 'third', threadId }, new RecordingSink(), signal()),
    ).resolves.toMatchObject({ message: 'now free' });
  });

  it('stops on abort: upstream request cancelled, partial text completed as aborted and kept, estimated usage recorded', async () => {
    server.enqueue({ text: 'The fetch-api node requests the stats API and then', chunkSize: 5, hangAfterChunks: 4 });
    const controller = new AbortController();
    const sink = new RecordingSink();
    const running = harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'Explain fetch-api' },
      sink,
      controller.signal,
    );
    await server.waitForRequests(1);
    while (sink.text.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const result = await running;

    expect(result).toMatchObject({ type: 'message', aborted: true });
    expect(result.message.length).toBeGreaterThan(0);
    expect(sink.completed).toEqual(result);
    await server.waitForClientClose(0);
    expect(result.usage).toMatchObject({ estimated: true, llmCalls: 1 });

    const view = await harness.agent.getThread(editor, result.threadId);
    expect(view.messages.at(-1)).toMatchObject({ role: 'assistant', content: result.message, aborted: true });
    expect(view.usage.llmCalls).toBe(1);
    expect(view.usage.promptTokens).toBeGreaterThan(0);
  });

  it('records the usage of a run that fails midway and leaves the thread usable', async () => {
    server.enqueue({ text: 'This will be cut off soon', chunkSize: 3, disconnectAfterChunks: 4, delayMs: 5 });
    const sink = new RecordingSink();
    const failure = await harness.agent
      .chat(editor, { graphKey: GRAPH, message: 'Explain' }, sink, signal())
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'network', retryable: true });
    expect(sink.completed).toBeUndefined();
    const threadId = (sink.events[0] as { threadId: string }).threadId;
    const usage = (await harness.threadService.load(editor, threadId)).usage;
    expect(usage.llmCalls).toBe(1);
    expect(usage.completionTokens).toBeGreaterThan(0);

    server.enqueue({ text: 'Second try works.' });
    const retry = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'Explain again', threadId },
      new RecordingSink(),
      signal(),
    );
    expect(retry.message).toBe('Second try works.');
    expect(messagesOf(server.requests[1]).map((message) => message.role)).toEqual([
      'system',
      'system',
      'system',
      'user',
      'system',
      'user',
      'system',
      'system',
    ]);
  });

  it('refuses to call the model once the token budget is spent (budget_exceeded)', async () => {
    await harness.close();
    harness = await AgentHarness.create({
      env: { ...server.providerEnv('openai'), AI_MAX_TOTAL_TOKENS: '1000' },
    });
    server.enqueue({ text: 'expensive', usage: { prompt: 1500, completion: 10 } });
    await harness.agent.chat(editor, { graphKey: GRAPH, message: 'first' }, new RecordingSink(), signal());
    await expect(
      harness.agent.chat(editor, { graphKey: GRAPH, message: 'second' }, new RecordingSink(), signal()),
    ).rejects.toMatchObject({
      code: 'budget_exceeded',
      statusCode: 402,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("lists, shows (without system messages) and deletes the principal's threads", async () => {
    server.enqueue({ text: 'one' });
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'first question' },
      new RecordingSink(),
      signal(),
    );
    expect(await harness.agent.listThreads(editor, GRAPH)).toEqual([
      expect.objectContaining({ threadId: result.threadId, title: 'first question', pendingInterrupt: false }),
    ]);
    expect(await harness.agent.listThreads(viewer, GRAPH)).toEqual([]);
    const view = await harness.agent.getThread(editor, result.threadId);
    expect(view.messages.map((message) => message.role)).toEqual(['user', 'event', 'assistant']);
    expect(view.pendingInterrupt).toBeNull();
    await harness.agent.deleteThread(editor, result.threadId);
    await expect(harness.agent.getThread(editor, result.threadId)).rejects.toMatchObject({ code: 'not_found' });
  });
});

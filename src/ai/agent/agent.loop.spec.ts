import { ScriptedLlmServer } from '../../../test/support/scripted-llm-server';
import { RunAuthority } from '../authority/run-authority';
import { InMemoryGraphDataSource } from '../../../test/support/in-memory-graph-data-source';
import { waitUntil } from '../../../test/support/wait-until';
import { AppError } from '../../errors/app-error';
import { nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../observability/logger';
import { AnthropicProvider } from '../../providers/anthropic.provider';
import { LlmErrorClassifier } from '../../providers/llm-error.classifier';
import { LlmMessage, LlmToolMessage } from '../../conversation/llm-message';
import { LlmProvider } from '../../providers/llm-provider';
import { OfflineLlmProvider } from '../../providers/offline.provider';
import { OpenAiCompatibleProvider } from '../../providers/openai-compatible.provider';
import { TokenTracker } from '../../providers/token.tracker';
import { estimateTokens, estimateToolTokens } from '../../providers/token-estimate';
import { TokenCounter } from '../../rag/token-counter';
import { ActionConverter } from '../actions/action.converter';
import { ProposalReferenceValidator } from '../actions/proposal-reference.validator';
import { AgentToolbox } from '../tools/agent.toolbox';
import { ReadToolExecutor } from '../tools/read/read-tool.executor';
import { AgentLoop, NO_PROGRESS_NOTE, TOOL_ROUNDS_SPENT_NOTE } from './agent.loop';
import { LOOP_NOTES } from './loop-notes.texts';
import { COMPACT_TOOL_RESULT_MAX_CHARS } from './run-conversation';
import { ThreadEvent } from '../../conversation/thread-event';
import { effectiveLevels } from '../../policy/action-policy';
import { ActionApplication, CheckedAction } from '../actions/checked-action';
import { ProposalReferenceCheck } from '../actions/proposal-reference.validator';
import { ProposedAction } from '../../conversation/proposed-action';
import { AgentCommitRequest, AgentRunRequest, RunProposals } from './agent-run';
import { UsageAccumulator } from './usage.accumulator';

const GRAPH = 'nba-workflow';
const question: LlmMessage[] = [
  { role: 'system', content: 'You are a workflow assistant.', cacheBreakpoint: true },
  { role: 'user', content: 'What does fetch-api do?' },
];

interface Harness {
  request: AgentRunRequest;
  commits: AgentCommitRequest[];
  events: string[];
  controller: AbortController;
  applied: CheckedAction[];
}

/** The run's proposals, as the tests need them: checked as told, previewed by the converter, applied as told. */
type FakeProposals = RunProposals & { check: (action: ProposedAction) => Promise<ProposalReferenceCheck> };

/** Applies nothing: records what the loop applied and answers as told; each round's series is one event. */
function fakeProposals(
  applied: CheckedAction[],
  application: ActionApplication,
  converter: ActionConverter,
): FakeProposals {
  let round: CheckedAction[] = [];
  return {
    check: async (action) => ({ ok: true, action }),
    preview: async (action, toolCallId) => ({
      ...converter.convert(action, GRAPH, '0', toolCallId),
      basis: { graphRevision: null, nodes: {}, edges: {} },
    }),
    applyAutonomous: async (action) => {
      applied.push(action);
      round.push(action);
      return application;
    },
    takeEvents: () => {
      const events: ThreadEvent[] =
        round.length > 0 ? [{ type: 'ACTIONS_EXECUTED', summary: `Applied ${round.length}`, results: [] }] : [];
      round = [];
      return events;
    },
  };
}

describe(AgentLoop.name, () => {
  let server: ScriptedLlmServer;
  let logs: LogEntry[];
  const dataSource = new InMemoryGraphDataSource('default', [nbaWorkflowDemo]);
  const converter = new ActionConverter(nbaWorkflowDemo.nodeConfigs);

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  const openAi = (): LlmProvider =>
    new OpenAiCompatibleProvider({
      providerName: 'openai',
      baseURL: server.openAiBaseUrl,
      apiKey: 'sk-test',
      model: 'gpt-4o',
    });

  const pricedTracker = () =>
    new TokenTracker({
      pricingFor: () => ({ inputPerMillion: 2.5, inputCacheHitPerMillion: 1.25, outputPerMillion: 10 }),
    });

  const loopWith = (provider: LlmProvider, maxToolRounds = 5, tracker = pricedTracker()) =>
    new AgentLoop(
      { provider, tokenTracker: tracker, tokenCounter: new TokenCounter(), classifier: new LlmErrorClassifier('en') },
      { maxToolRounds },
    );

  function harness(
    options: {
      canPropose?: boolean;
      toolsSupported?: boolean;
      policy?: RunAuthority;
      application?: ActionApplication;
    } = {},
  ): Harness {
    const commits: AgentCommitRequest[] = [];
    const events: string[] = [];
    const applied: CheckedAction[] = [];
    const controller = new AbortController();
    const request: AgentRunRequest = {
      messages: question,
      tools: new AgentToolbox({
        authority: options.policy ?? RunAuthority.withDefaultLevels(options.canPropose ?? true),
        readTools: new ReadToolExecutor(dataSource, GRAPH),
        toolsSupported: options.toolsSupported,
      }),
      events: {
        token: (text) => events.push(`token:${text}`),
        toolStart: (id, name) => events.push(`tool_start:${id}:${name}`),
        toolResult: (id) => events.push(`tool_result:${id}`),
        event: (event) => events.push(`event:${event.summary}`),
        apply: (action) => events.push(`apply:${action.toolCallId}`),
      },
      proposals: fakeProposals(
        applied,
        options.application ?? { status: 'applied', appliedBy: 'server', operationId: 'ai_test:op' },
        converter,
      ),
      signal: controller.signal,
      usage: new UsageAccumulator(),
      rounds: {
        commit: async (commit) => {
          commits.push(structuredClone(commit));
        },
      },
      threadId: 'ai_test',
      workspace: 'default',
      agentRunId: 'run1',
    };
    return { request, commits, events, controller, applied };
  }

  it('streams a direct answer token by token, commits it and reports the provider usage', async () => {
    server.enqueue({
      text: 'It fetches the NBA players.',
      chunkSize: 5,
      usage: { prompt: 120, completion: 7, cached: 100 },
    });
    const { request, commits, events } = harness();
    const outcome = await loopWith(openAi()).run(request);

    expect(outcome).toEqual({
      type: 'message',
      text: 'It fetches the NBA players.',
      toolCalls: [],
      aborted: false,
      stats: { stopReason: 'answer', rounds: 0, toolResults: 0 },
      events: [],
      actions: [],
    });
    expect(events).toEqual(['token:It fe', 'token:tches', 'token: the ', 'token:NBA p', 'token:layer', 'token:s.']);
    expect(commits).toEqual([
      {
        messages: [{ role: 'assistant', content: 'It fetches the NBA players.', threadId: 'ai_test' }],
        operationId: 'run1:0',
        last: true, // the answer: the run may end with it
      },
    ]);
    expect(request.usage.report()).toMatchObject({
      promptTokens: 120,
      completionTokens: 7,
      cachedTokens: 100,
      llmCalls: 1,
    });
    expect(request.usage.report().estimated).toBeUndefined();
    expect(request.usage.report().costUsd).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain(
      'propose_batch',
    );
  });

  it("asks the call's pacer before relaying each chunk, and relays nothing more while it holds the stream", async () => {
    server.enqueue({ text: 'It fetches the NBA players.', chunkSize: 5 });
    const { request, events } = harness();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    let pacers = 0;
    request.pacing = {
      streamPacer: () => {
        pacers++;
        return { beforeChunk: () => (++asked === 2 ? held : null) };
      },
    };
    const run = loopWith(openAi()).run(request);
    await waitUntil(() => asked === 2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(events).toEqual(['token:It fe']);
    release();
    await run;
    expect(events).toEqual(['token:It fe', 'token:tches', 'token: the ', 'token:NBA p', 'token:layer', 'token:s.']);
    expect(pacers).toBe(1);
    expect(asked).toBeGreaterThanOrEqual(6);
  });

  it('runs read tools with the model ids, sends their results back, and separates the rounds text', async () => {
    server.enqueue(
      {
        text: 'Let me look.',
        toolCalls: [{ id: 'call_a', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' }, fragments: 4 }],
      },
      { text: 'It calls the stats API.' },
    );
    const { request, commits, events } = harness();
    const outcome = await loopWith(openAi()).run(request);

    expect(outcome).toMatchObject({
      type: 'message',
      text: 'Let me look.\n\nIt calls the stats API.',
      toolCalls: [{ id: 'call_a', name: 'read_node_detail', status: 'executed' }],
    });
    expect(events).toContain('tool_start:call_a:read_node_detail');
    expect(events.indexOf('tool_start:call_a:read_node_detail')).toBeLessThan(events.indexOf('tool_result:call_a'));
    expect(commits).toHaveLength(2);
    expect(commits[0].messages[0]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_a' }] });
    expect(commits.map((commit) => commit.last)).toEqual([undefined, true]); // the tool round is not the last
    const second = server.requests[1].body.messages;
    const toolMessage = second.find((message: { role: string }) => message.role === 'tool');
    expect(toolMessage.tool_call_id).toBe('call_a');
    expect(JSON.parse(toolMessage.content)).toMatchObject({ key: 'fetch-api' });
  });

  it('processes parallel calls in order: reads run, the first valid write interrupts and keeps the rest', async () => {
    server.enqueue({
      toolCalls: [
        { id: 'call_1', name: 'search_nodes', arguments: { query: 'filter' } },
        { id: 'call_2', name: 'propose_delete_node', arguments: { nodeKey: 'disconnected-note', reason: 'unused' } },
        { id: 'call_3', name: 'read_node_detail', arguments: { nodeKey: 'root' } },
        { id: 'call_4', name: 'propose_move_node', arguments: { nodeKey: 'root', posX: 1, posY: 2, reason: 'tidy' } },
      ],
      interleaveToolCalls: true,
    });
    const { request, commits, events } = harness();
    const outcome = await loopWith(openAi()).run(request);

    expect(outcome.type).toBe('interrupt');
    if (outcome.type !== 'interrupt') return;
    expect(outcome.interrupt).toMatchObject({
      kind: 'approval',
      toolCallId: 'call_2',
      proposedAction: { type: 'delete_node', payload: { nodeKey: 'disconnected-note' } },
      preview: { nodeKeysToDelete: ['disconnected-note'] },
    });
    expect(outcome.pending.remainingToolCalls.map((call) => call.id)).toEqual(['call_3', 'call_4']);
    expect(events.filter((event) => event.startsWith('tool_start'))).toEqual(['tool_start:call_1:search_nodes']);
    expect(commits).toHaveLength(1);
    expect(commits[0].messages.map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(commits[0].pendingInterrupt).toMatchObject({
      toolName: 'propose_delete_node',
      interrupt: { toolCallId: 'call_2' },
    });
    expect(commits[0].last).toBe(true); // the run stops on it
    expect(server.requests).toHaveLength(1);
  });

  it('after maxToolRounds executed rounds makes one final call without tools (rounds + 1 requests)', async () => {
    const read = (id: string, nodeKey: string) => ({
      toolCalls: [{ id, name: 'read_node_detail', arguments: { nodeKey } }],
    });
    server.enqueue(read('r1', 'fetch-api'), read('r2', 'root'), { text: 'Here is what I found.' });
    const { request, commits } = harness();
    const outcome = await loopWith(openAi(), 2).run(request);

    expect(outcome).toMatchObject({
      type: 'message',
      text: 'Here is what I found.',
      aborted: false,
      stats: { stopReason: 'rounds_spent', rounds: 2, toolResults: 2 },
    });
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0].body.tools).toBeDefined();
    expect(server.requests[1].body.tools).toBeDefined();
    expect(server.requests[2].body.tools).toBeUndefined();
    // The last call is told why it has no tools; the note is sent, never stored.
    expect(server.requests[1].body.messages.at(-1).role).toBe('tool');
    expect(server.requests[2].body.messages.at(-1)).toEqual({ role: 'system', content: TOOL_ROUNDS_SPENT_NOTE });
    expect(JSON.stringify(commits)).not.toContain(TOOL_ROUNDS_SPENT_NOTE);
    expect(commits).toHaveLength(3);
    expect(request.usage.calls).toBe(3);
  });

  it('makes the final call without tools over the Anthropic wire too, the tool blocks told as text', async () => {
    server.enqueue(
      { toolCalls: [{ id: 'toolu_1', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }] },
      { text: 'It calls the stats API.' },
    );
    const provider = new AnthropicProvider({
      apiKey: 'sk-ant',
      baseURL: server.anthropicBaseUrl,
      model: 'claude-sonnet-4-20250514',
    });
    const { request } = harness();
    const outcome = await loopWith(provider, 1).run(request);

    expect(outcome).toMatchObject({ type: 'message', text: 'It calls the stats API.', aborted: false });
    const final = server.requests[1].body;
    expect(final.tools).toBeUndefined();
    const blocks = final.messages.flatMap((message: { content: unknown }) =>
      Array.isArray(message.content) ? message.content : [],
    );
    expect(blocks.every((block: { type: string }) => block.type === 'text')).toBe(true);
    expect(blocks.map((block: { text: string }) => block.text).join('\n')).toMatch(
      /\[tool call read_node_detail \{"nodeKey":"fetch-api"\}\][\s\S]*\[result of read_node_detail\]\n\{"key":"fetch-api"/,
    );
  });

  it('answers malformed tool-call JSON with an error result the model corrects, and logs malformed_json', async () => {
    server.enqueue(
      { toolCalls: [{ id: 'bad', name: 'read_node_detail', arguments: '{"nodeKey": "fetch-api"' }] },
      { toolCalls: [{ id: 'good', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }] },
      { text: 'Fixed.' },
    );
    const { request, events } = harness();
    const outcome = await loopWith(openAi()).run(request);

    expect(outcome).toMatchObject({
      type: 'message',
      toolCalls: [
        { id: 'bad', status: 'error' },
        { id: 'good', status: 'executed' },
      ],
    });
    const errorResult = server.requests[1].body.messages.find(
      (message: { tool_call_id?: string }) => message.tool_call_id === 'bad',
    );
    expect(JSON.parse(errorResult.content)).toMatchObject({
      status: 'error',
      message: expect.stringContaining('not valid JSON'),
    });
    expect(events).toContain('tool_result:bad');
    expect(logs.find((entry) => entry.event === 'malformed_json')).toMatchObject({
      context: 'read_node_detail',
      level: 'warn',
    });
  });

  it('sends an invalid write call back to the model as an error, never as an interrupt', async () => {
    server.enqueue(
      {
        toolCalls: [
          {
            id: 'w1',
            name: 'propose_create_node',
            arguments: { typeKey: 'filter', sheet: '0', posX: 1, posY: 1, reason: 'x', colour: 'red' },
          },
        ],
      },
      { text: 'Sorry, I cannot add that.' },
    );
    const { request } = harness();
    const outcome = await loopWith(openAi()).run(request);
    expect(outcome).toMatchObject({ type: 'message', toolCalls: [{ id: 'w1', status: 'error' }] });
    const result = server.requests[1].body.messages.find(
      (message: { tool_call_id?: string }) => message.tool_call_id === 'w1',
    );
    expect(result.content).toContain('colour is not an allowed property');
  });

  it('refuses a proposal whose references the check rejects like an invalid call; the next valid one interrupts with the checked action', async () => {
    server.enqueue({
      toolCalls: [
        { id: 'w1', name: 'propose_move_node', arguments: { nodeKey: 'ghost', posX: 1, posY: 2, reason: 'tidy' } },
        {
          id: 'w2',
          name: 'propose_create_node',
          arguments: { typeKey: 'filter', sheet: 'data-processing', posX: 1, posY: 1, reason: 'x' },
        },
      ],
    });
    const { request, commits, events } = harness();
    const references = new ProposalReferenceValidator(dataSource, GRAPH);
    (request.proposals as FakeProposals).check = (action) => references.validate(action);
    const outcome = await loopWith(openAi()).run(request);

    expect(outcome).toMatchObject({
      type: 'interrupt',
      toolCalls: [
        { id: 'w1', status: 'error' },
        { id: 'w2', status: 'proposed' },
      ],
      interrupt: { toolCallId: 'w2', proposedAction: { payload: { sheet: '1' } }, preview: { sheetId: '1' } },
    });
    const refusal = commits[0].messages.find((message) => message.role === 'tool' && message.tool_call_id === 'w1');
    expect(JSON.parse(String(refusal?.content))).toMatchObject({
      status: 'error',
      message: expect.stringContaining('Node "ghost" does not exist'),
    });
    expect(events.filter((event) => event.startsWith('tool_'))).toEqual([]);
  });

  it('continues an interrupted batch: the decided results first, then the remaining calls, before calling the model', async () => {
    server.enqueue({ text: 'Done.' });
    const { request, commits, events } = harness();
    request.continuation = {
      results: [{ role: 'tool', tool_call_id: 'call_2', content: '{"status":"approved","message":"ok"}' }],
      remainingToolCalls: [
        { id: 'call_3', type: 'function', function: { name: 'read_node_detail', arguments: '{"nodeKey":"root"}' } },
        {
          id: 'call_4',
          type: 'function',
          function: { name: 'propose_move_node', arguments: '{"nodeKey":"root","posX":5,"posY":6,"reason":"tidy"}' },
        },
      ],
      firstCallIndex: 2,
    };
    const outcome = await loopWith(openAi()).run(request);
    expect(outcome).toMatchObject({
      type: 'interrupt',
      interrupt: { toolCallId: 'call_4', proposedAction: { type: 'move_node' } },
    });
    expect(events).toEqual(['tool_start:call_3:read_node_detail', 'tool_result:call_3']);
    expect(commits).toHaveLength(1);
    expect(commits[0].messages.map((message) => (message as { tool_call_id: string }).tool_call_id)).toEqual([
      'call_2',
      'call_3',
    ]);
    expect(commits[0].pendingInterrupt).toMatchObject({ interrupt: { toolCallId: 'call_4' }, remainingToolCalls: [] });
    expect(server.requests).toHaveLength(0);
  });

  it('aborts the upstream request, keeps the partial text and estimates the usage the provider never sent', async () => {
    server.enqueue({ text: 'The fetch-api node calls an HTTP API and then', chunkSize: 6, hangAfterChunks: 3 });
    const { request, commits, events, controller } = harness();
    const running = loopWith(openAi()).run(request);
    await server.waitForRequests(1);
    while (events.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const outcome = await running;

    expect(outcome.type).toBe('message');
    expect(outcome).toMatchObject({ aborted: true });
    expect(outcome.text.length).toBeGreaterThan(0);
    expect(commits).toEqual([
      {
        messages: [{ role: 'assistant', content: outcome.text, threadId: 'ai_test' }],
        aborted: true,
        operationId: 'run1:0',
      },
    ]);
    expect(outcome).toMatchObject({ stats: { stopReason: 'aborted' } });
    await server.waitForClientClose(0);
    const usage = request.usage.report();
    expect(usage).toMatchObject({ estimated: true, llmCalls: 1 });
    expect(usage.promptTokens).toBeGreaterThan(10);
    expect(usage.completionTokens).toBeGreaterThan(0);
  });

  it('estimates an aborted call without tokenizing the prompt: prompt from its length, short completion with the loaded tokenizer', async () => {
    const bigPrompt: LlmMessage[] = [
      question[0],
      { role: 'user', content: `${'const value = compute(input); '.repeat(800)}What does it do?` },
    ];
    const counted: string[] = [];
    const counter = new TokenCounter();
    jest.spyOn(counter, 'loaded', 'get').mockReturnValue(true);
    jest.spyOn(counter, 'count').mockImplementation((text: string) => {
      counted.push(text);
      return Math.ceil(text.length / 4);
    });
    server.enqueue({ text: 'It computes a value from', chunkSize: 6, hangAfterChunks: 3 });
    const { request, events, controller } = harness();
    request.messages = bigPrompt;
    const loop = new AgentLoop(
      {
        provider: openAi(),
        tokenTracker: pricedTracker(),
        tokenCounter: counter,
        classifier: new LlmErrorClassifier('en'),
      },
      { maxToolRounds: 5 },
    );
    const running = loop.run(request);
    await server.waitForRequests(1);
    while (events.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const outcome = await running;

    const usage = request.usage.report();
    expect(usage).toMatchObject({ estimated: true, llmCalls: 1 });
    // Only the streamed text went through the tokenizer, never a prompt message.
    expect(counted).toEqual([outcome.text]);
    const promptChars = bigPrompt.reduce((sum, message) => sum + (message.content ?? '').length, 0);
    expect(usage.promptTokens).toBeGreaterThan(promptChars / 3);
    expect(usage.promptTokens).toBe(estimateTokens(bigPrompt) + estimateToolTokens(request.tools.definitions));
    expect(usage.completionTokens).toBe(Math.ceil(outcome.text.length / 4));
  });

  it('estimates the completion from its length while the tokenizer is not loaded', async () => {
    const counter = new TokenCounter();
    jest.spyOn(counter, 'loaded', 'get').mockReturnValue(false);
    const count = jest.spyOn(counter, 'count');
    server.enqueue({ text: 'Partial answer that gets cut', chunkSize: 4, disconnectAfterChunks: 4, delayMs: 10 });
    const { request, events } = harness();
    const loop = new AgentLoop(
      {
        provider: openAi(),
        tokenTracker: pricedTracker(),
        tokenCounter: counter,
        classifier: new LlmErrorClassifier('en'),
      },
      { maxToolRounds: 5 },
    );
    await expect(loop.run(request)).rejects.toMatchObject({ code: 'network' });
    const streamed = events.map((event) => event.replace(/^token:/, '')).join('');
    expect(streamed.length).toBeGreaterThan(0);
    expect(count).not.toHaveBeenCalled();
    expect(request.usage.report()).toMatchObject({ estimated: true, completionTokens: Math.ceil(streamed.length / 3) });
  });

  it('checks AI_MAX_TOKENS_PER_CALL with the length estimate, without the tokenizer', async () => {
    const counter = new TokenCounter();
    const count = jest.spyOn(counter, 'count');
    const { request } = harness();
    request.messages = [question[0], { role: 'user', content: 'x'.repeat(30_000) }];
    const loop = new AgentLoop(
      {
        provider: openAi(),
        tokenTracker: pricedTracker(),
        tokenCounter: counter,
        classifier: new LlmErrorClassifier('en'),
      },
      { maxToolRounds: 5, maxTokensPerCall: 10_000 },
    );
    await expect(loop.run(request)).rejects.toMatchObject({
      code: 'budget_exceeded',
      details: expect.objectContaining({ kind: 'per_call' }),
    });
    expect(count).not.toHaveBeenCalled();
    expect(server.requests).toHaveLength(0);
  });

  it('throws a classified AppError when the provider refuses the call, counting the call without tokens', async () => {
    server.enqueue({ error: { status: 401, message: 'bad key' } });
    const { request, commits } = harness();
    const failure = await loopWith(openAi())
      .run(request)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'auth_error', retryable: false });
    expect(commits).toEqual([]);
    expect(request.usage.report()).toMatchObject({ llmCalls: 1, totalTokens: 0 });
    expect(request.usage.report().estimated).toBeUndefined();
  });

  it('estimates the usage of a stream that fails midway (tokens already generated) and throws network', async () => {
    server.enqueue({ text: 'Partial answer that gets cut', chunkSize: 4, disconnectAfterChunks: 4, delayMs: 10 });
    const { request, commits, events } = harness();
    const failure = await loopWith(openAi())
      .run(request)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'network', retryable: true });
    expect(events.length).toBeGreaterThan(0);
    expect(commits).toEqual([]);
    expect(request.usage.report()).toMatchObject({ llmCalls: 1, estimated: true });
    expect(request.usage.report().completionTokens).toBeGreaterThan(0);
  });

  it('stops before calling the model when the token budget is spent', async () => {
    const tracker = new TokenTracker({ limits: { maxTotalTokens: 10 } });
    tracker.record(
      { promptTokens: 20, completionTokens: 0, cachedTokens: 0, totalTokens: 20 },
      { provider: 'openai', model: 'x' },
    );
    const { request } = harness();
    await expect(loopWith(openAi(), 5, tracker).run(request)).rejects.toMatchObject({ code: 'budget_exceeded' });
    expect(server.requests).toHaveLength(0);
  });

  it('works the same over the Anthropic wire: tool_use blocks, tool results, usage with cache reads', async () => {
    server.enqueue(
      {
        text: 'Checking.',
        toolCalls: [{ id: 'toolu_1', name: 'list_node_edges', arguments: { nodeKey: 'fetch-api' } }],
        usage: { prompt: 300, completion: 20, cached: 200 },
      },
      { text: 'It has two outputs.', usage: { prompt: 400, completion: 10 } },
    );
    const provider = new AnthropicProvider({
      apiKey: 'sk-ant',
      baseURL: server.anthropicBaseUrl,
      model: 'claude-sonnet-4-20250514',
    });
    const { request, events } = harness();
    const outcome = await loopWith(provider).run(request);

    expect(outcome).toMatchObject({ type: 'message', text: 'Checking.\n\nIt has two outputs.' });
    expect(events).toContain('tool_start:toolu_1:list_node_edges');
    expect(server.requests[0].endpoint).toBe('anthropic.messages');
    const toolResultBlock = server.requests[1].body.messages
      .flatMap((message: { content: unknown }) => (Array.isArray(message.content) ? message.content : []))
      .find((block: { type: string }) => block.type === 'tool_result');
    expect(toolResultBlock.tool_use_id).toBe('toolu_1');
    expect(request.usage.report()).toMatchObject({
      promptTokens: 700,
      completionTokens: 30,
      cachedTokens: 200,
      llmCalls: 2,
    });
  });

  it('with the offline provider passes the retrieved context, offers no tools and records zero usage', async () => {
    const { request, events } = harness({ toolsSupported: false });
    request.retrievedContext = {
      graph: { _key: GRAPH, name: 'NBA stats workflow', sheets: { '0': 'main' } },
      relevantNodes: [],
      relevantEdges: [],
      nodeTypeConfigs: [],
      retrieval: { query: 'q', searchMode: 'bm25', cacheHit: false, durationMs: 1 },
    };
    const outcome = await loopWith(new OfflineLlmProvider()).run(request);
    expect(outcome.type).toBe('message');
    expect(outcome.text.length).toBeGreaterThan(0);
    expect(events.map((event) => event.replace(/^token:/, '')).join('')).toBe(outcome.text);
    expect(request.usage.report()).toMatchObject({ totalTokens: 0, llmCalls: 1 });
    expect(request.usage.report().estimated).toBeUndefined();
  });

  it('counts the per-reply cap over the whole reply on resume, not from the first call after the interrupt', async () => {
    server.enqueue({ text: 'Done.' });
    const { request, commits } = harness();
    const read = (id: string) => ({
      id,
      type: 'function' as const,
      function: { name: 'read_node_detail', arguments: `{"nodeKey":"root","n":"${id}"}` },
    });
    // The reply had 14 calls; the 3rd interrupted: 11 remain, of which only calls 4 to 10 (7) may run.
    request.continuation = {
      results: [{ role: 'tool', tool_call_id: 'call_3', content: '{"status":"approved","message":"ok"}' }],
      remainingToolCalls: Array.from({ length: 11 }, (_, index) => read(`call_${index + 4}`)),
      firstCallIndex: 3,
    };
    await loopWith(openAi()).run(request);
    const results = commits[0].messages.slice(1).map((message) => JSON.parse(String(message.content)) as object);
    expect(results.filter((result) => 'status' in result && result.status === 'error')).toHaveLength(4);
  });

  describe('with an action policy', () => {
    const policyOf = (levels: Parameters<typeof effectiveLevels>[0]['default']) =>
      new RunAuthority(true, effectiveLevels({ default: levels, roles: {} }, 'editor'));
    const createLogNode = {
      id: 'call_auto',
      name: 'propose_create_node',
      arguments: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 1, posY: 2, reason: 'log' },
    };
    const toolNames = (index: number) =>
      server.requests[index].body.tools.map((tool: { function: { name: string } }) => tool.function.name);

    it('applies an autonomous proposal without stopping, commits its event after the round and shows it to the model', async () => {
      server.enqueue({ toolCalls: [createLogNode] }, { text: 'Added.' });
      const { request, commits, events, applied } = harness({ policy: policyOf({ create_node: 'autonomous' }) });
      const outcome = await loopWith(openAi()).run(request);

      expect(outcome).toMatchObject({
        type: 'message',
        text: 'Added.',
        toolCalls: [{ id: 'call_auto', status: 'applied' }],
      });
      expect(outcome.events).toEqual([{ type: 'ACTIONS_EXECUTED', summary: 'Applied 1', results: [] }]);
      expect(applied).toEqual([
        expect.objectContaining({
          toolCallId: 'call_auto',
          proposedAction: expect.objectContaining({ type: 'create_node' }),
        }),
      ]);
      expect(applied[0].preview.nodesToCreate).toEqual([expect.objectContaining({ _key: 'log-errors' })]);
      expect(events.filter((event) => !event.startsWith('token:'))).toEqual([
        'tool_start:call_auto:propose_create_node',
        'tool_result:call_auto',
        'event:Applied 1',
      ]);
      expect(commits[0]).toMatchObject({
        messages: [{ role: 'assistant' }, { role: 'tool', tool_call_id: 'call_auto' }],
        events: [{ summary: 'Applied 1' }],
      });
      expect(JSON.parse(commits[0].messages[1].content as string)).toMatchObject({
        status: 'applied',
        appliedBy: 'server',
      });
      expect(server.requests[1].body.messages.slice(-2)).toEqual([
        expect.objectContaining({ role: 'tool', tool_call_id: 'call_auto' }),
        { role: 'system', content: '[SYSTEM] Applied 1' },
      ]);
    });

    it('hands an autonomous action to the client with HITL_APPLY=client, and reports one the graph refused as failed', async () => {
      server.enqueue({ toolCalls: [createLogNode] }, { text: 'Sent.' });
      const client = harness({
        policy: policyOf({ create_node: 'autonomous' }),
        application: { status: 'applied', appliedBy: 'client', operationId: 'ai_test:call_auto' },
      });
      const sent = await loopWith(openAi()).run(client.request);
      expect(sent.actions).toEqual([expect.objectContaining({ toolCallId: 'call_auto' })]);
      expect(client.events).toContain('apply:call_auto');

      server.reset();
      server.enqueue({ toolCalls: [createLogNode] }, { text: 'It failed.' });
      const refused = harness({
        policy: policyOf({ create_node: 'autonomous' }),
        application: { status: 'failed', reason: 'Node "log-errors" already exists', operationId: 'ai_test:call_auto' },
      });
      const outcome = await loopWith(openAi()).run(refused.request);
      expect(outcome).toMatchObject({ toolCalls: [{ id: 'call_auto', status: 'error' }], actions: [] });
      expect(JSON.parse(refused.commits[0].messages[1].content as string)).toEqual({
        status: 'failed',
        message: 'It could not be applied: Node "log-errors" already exists. Nothing was changed.',
      });
    });

    it('offers no tool of a forbidden kind and refuses a call to one without applying or asking', async () => {
      server.enqueue(
        {
          toolCalls: [{ id: 'call_forced', name: 'propose_delete_node', arguments: { nodeKey: 'root', reason: 'x' } }],
        },
        { text: 'Not allowed.' },
      );
      const { request, applied, events } = harness({ policy: policyOf({ delete_node: 'forbidden' }) });
      const outcome = await loopWith(openAi()).run(request);
      expect(toolNames(0)).not.toContain('propose_delete_node');
      expect(outcome).toMatchObject({ type: 'message', toolCalls: [{ id: 'call_forced', status: 'error' }] });
      expect(applied).toEqual([]);
      expect(events.some((event) => event.startsWith('tool_start'))).toBe(false);
      const refusal = server.requests[1].body.messages.find(
        (message: { tool_call_id?: string }) => message.tool_call_id === 'call_forced',
      );
      expect(JSON.parse(refusal.content)).toMatchObject({
        status: 'error',
        message: expect.stringContaining('forbids delete_node'),
      });
    });

    it('stops on a valid ask_user call with a question interrupt that keeps the calls after it', async () => {
      server.enqueue({
        toolCalls: [
          { id: 'call_bad', name: 'ask_user', arguments: { kind: 'choice', question: 'Which?', options: ['one'] } },
          {
            id: 'call_q',
            name: 'ask_user',
            arguments: { kind: 'choice', question: 'Which sheet?', options: ['main', 'data-processing'] },
          },
          { id: 'call_after', name: 'read_node_detail', arguments: { nodeKey: 'root' } },
        ],
      });
      const { request, commits } = harness({ canPropose: false });
      const outcome = await loopWith(openAi()).run(request);
      expect(toolNames(0)).toContain('ask_user');
      expect(outcome).toMatchObject({
        type: 'interrupt',
        interrupt: {
          kind: 'question',
          toolCallId: 'call_q',
          questionKind: 'choice',
          question: 'Which sheet?',
          options: ['main', 'data-processing'],
        },
        toolCalls: [
          { id: 'call_bad', status: 'error' },
          { id: 'call_q', status: 'asked' },
        ],
      });
      expect(outcome.type === 'interrupt' && outcome.pending).toMatchObject({
        toolName: 'ask_user',
        remainingToolCalls: [{ id: 'call_after' }],
      });
      expect(JSON.parse(commits[0].messages[1].content as string)).toMatchObject({
        status: 'error',
        message: expect.stringContaining('at least 2'),
      });
    });
  });

  describe('smart stopping, limits, isolation, locale, traces (seed 003)', () => {
    const detail = (id: string, nodeKey: string) => ({ id, name: 'read_node_detail', arguments: { nodeKey } });

    it('stores each tool result with its tool name, success, duration and thread', async () => {
      server.enqueue({ toolCalls: [detail('c1', 'fetch-api'), detail('c2', 'ghost')] }, { text: 'Done.' });
      const { request, commits } = harness();
      const outcome = await loopWith(openAi()).run(request);
      const results = commits[0].messages.filter((message) => message.role === 'tool');
      expect(results).toEqual([
        expect.objectContaining({
          tool_call_id: 'c1',
          name: 'read_node_detail',
          success: true,
          durationMs: expect.any(Number),
          threadId: 'ai_test',
        }),
        expect.objectContaining({ tool_call_id: 'c2', name: 'read_node_detail', success: false, threadId: 'ai_test' }),
      ]);
      expect(commits.map((commit) => commit.operationId)).toEqual(['run1:0', 'run1:1']);
      expect(outcome).toMatchObject({ stats: { stopReason: 'answer', rounds: 1, toolResults: 1 } });
      // Stored facts never go upstream: the wire's tool message has its three fields only.
      const sent = server.requests[1].body.messages.find((message: { role: string }) => message.role === 'tool');
      expect(Object.keys(sent).sort()).toEqual(['content', 'role', 'tool_call_id']);
    });

    it('does not run a call again with the same arguments, and ends a round of repeats with the last call without tools', async () => {
      server.enqueue(
        { toolCalls: [detail('c1', 'fetch-api')] },
        // Same tool, same arguments (other key order and spacing): not run again.
        { toolCalls: [{ id: 'c2', name: 'read_node_detail', arguments: '{ "nodeKey" : "fetch-api" }' }] },
        { text: 'fetch-api calls the stats API.' },
      );
      const { request, events } = harness();
      const outcome = await loopWith(openAi()).run(request);

      expect(outcome).toMatchObject({
        type: 'message',
        stats: { stopReason: 'no_progress', rounds: 2, toolResults: 1 },
      });
      expect(events.filter((event) => event.startsWith('tool_start'))).toEqual(['tool_start:c1:read_node_detail']);
      const repeat = server.requests[2].body.messages.find(
        (message: { tool_call_id?: string }) => message.tool_call_id === 'c2',
      );
      expect(JSON.parse(repeat.content)).toEqual({
        status: 'error',
        message: expect.stringContaining('repeats call c1'),
      });
      expect(server.requests).toHaveLength(3);
      expect(server.requests[2].body.tools).toBeUndefined();
      expect(server.requests[2].body.messages.at(-1)).toEqual({ role: 'system', content: NO_PROGRESS_NOTE });
      expect(logs).toContainEqual(
        expect.objectContaining({ event: 'agent_no_progress', threadId: 'ai_test', repeatedCalls: 1 }),
      );
    });

    it('stops after AI_NO_PROGRESS_ROUNDS rounds that discover nothing new, long before AI_MAX_TOOL_ROUNDS', async () => {
      server.enqueue(
        { toolCalls: [detail('c1', 'fetch-api')] },
        { toolCalls: [detail('c2', 'nowhere-1')] },
        { toolCalls: [detail('c3', 'nowhere-2')] },
        { toolCalls: [detail('c4', 'nowhere-3')] },
        { text: 'I could not find those nodes.' },
      );
      const { request } = harness();
      const outcome = await loopWith(openAi(), 10).run(request);
      expect(outcome).toMatchObject({ stats: { stopReason: 'no_progress', rounds: 4, toolResults: 1 } });
      expect(server.requests).toHaveLength(5);
      expect(server.requests.slice(0, 4).every((sent) => Array.isArray(sent.body.tools))).toBe(true);
      expect(server.requests[4].body.tools).toBeUndefined();
    });

    it('keeps going while the rounds discover new nodes', async () => {
      server.enqueue(
        { toolCalls: [detail('c1', 'fetch-api')] },
        { toolCalls: [detail('c2', 'root')] },
        { toolCalls: [detail('c3', 'filter-active')] },
        { toolCalls: [detail('c4', 'sort-stats')] },
        { text: 'Four nodes read.' },
      );
      const { request } = harness();
      const outcome = await loopWith(openAi(), 10).run(request);
      expect(outcome).toMatchObject({ stats: { stopReason: 'answer', rounds: 4, toolResults: 4 } });
      expect(server.requests[4].body.tools).toBeDefined();
    });

    it('runs at most AI_MAX_TOOL_CALLS_PER_REPLY calls of one reply; the others get an error result', async () => {
      const nodes = ['entry-form', 'root', 'fetch-api', 'filter-active', 'display-html', 'return'];
      server.enqueue(
        { toolCalls: nodes.map((nodeKey, index) => detail(`c${index}`, nodeKey)) },
        { text: 'Read four.' },
      );
      const { request, events, commits } = harness();
      const loop = new AgentLoop(
        {
          provider: openAi(),
          tokenTracker: pricedTracker(),
          tokenCounter: new TokenCounter(),
          classifier: new LlmErrorClassifier('en'),
        },
        { maxToolRounds: 5, maxToolCallsPerReply: 4 },
      );
      const outcome = await loop.run(request);

      expect(events.filter((event) => event.startsWith('tool_start'))).toHaveLength(4);
      const results = commits[0].messages.filter((message) => message.role === 'tool') as LlmToolMessage[];
      expect(results).toHaveLength(6);
      expect(
        results.slice(4).map((result) => [result.tool_call_id, result.success, JSON.parse(result.content).message]),
      ).toEqual([
        ['c4', false, expect.stringContaining('at most 4 tool calls')],
        ['c5', false, expect.stringContaining('at most 4 tool calls')],
      ]);
      expect(outcome.toolCalls.map((call) => call.status)).toEqual([
        'executed',
        'executed',
        'executed',
        'executed',
        'error',
        'error',
      ]);
      expect(logs).toContainEqual(expect.objectContaining({ event: 'tool_calls_capped', calls: 6, limit: 4 }));
    });

    it('tells the model its notes and the results of unrun calls in the AI_LOCALE language', async () => {
      server.enqueue({ toolCalls: [detail('c1', 'fetch-api'), detail('c2', 'fetch-api')] }, { text: 'Réponse.' });
      const { request } = harness();
      const loop = new AgentLoop(
        {
          provider: openAi(),
          tokenTracker: pricedTracker(),
          tokenCounter: new TokenCounter(),
          classifier: new LlmErrorClassifier('fr'),
        },
        { maxToolRounds: 1, locale: 'fr' },
      );
      await loop.run(request);
      const last = server.requests[1].body.messages;
      expect(last.at(-1)).toEqual({ role: 'system', content: LOOP_NOTES.fr.roundsSpent });
      const repeat = last.find((message: { tool_call_id?: string }) => message.tool_call_id === 'c2');
      expect(JSON.parse(repeat.content).message).toMatch(/^Non relancé : cet appel répète l'appel c1/);
    });

    it('refuses to send a history holding a message of another thread, before any upstream call', async () => {
      const { request } = harness();
      request.messages = [
        { ...question[0] },
        { role: 'user', content: 'Mine', threadId: 'ai_test' },
        { role: 'assistant', content: 'Another conversation', threadId: 'ai_other' },
        { role: 'user', content: 'What does fetch-api do?', threadId: 'ai_test' },
      ];
      await expect(loopWith(openAi()).run(request)).rejects.toMatchObject({ code: 'internal' });
      expect(server.requests).toHaveLength(0);
      expect(logs).toContainEqual(
        expect.objectContaining({
          level: 'error',
          event: 'thread_isolation_violation',
          threadId: 'ai_test',
          where: 'upstream_call',
          foreignThreadIds: ['ai_other'],
        }),
      );
    });

    it('traces each call at debug level: round, operation id, replays, applied; and its last 8 messages masked under AI_DEBUG', async () => {
      configureLogging({ level: 'debug', aiDebug: true });
      try {
        server.enqueue({ toolCalls: [detail('c1', 'fetch-api')] }, { text: 'Done.' });
        const { request } = harness();
        request.messages = [
          question[0],
          ...Array.from({ length: 6 }, (_, index): LlmMessage => ({
            role: index % 2 ? 'assistant' : 'user',
            content: `turn ${index}`,
            threadId: 'ai_test',
          })),
          {
            role: 'user',
            content: 'Mail alice@example.com my key sk-proj-abcdefghijklmnop1234 please',
            threadId: 'ai_test',
          },
        ];
        let commits = 0;
        request.rounds = { commit: async () => ({ applied: commits++ === 0, replays: commits === 1 ? 2 : 0 }) };
        await loopWith(openAi()).run(request);

        const rounds = logs.filter((entry) => entry.event === 'llm_round');
        expect(rounds).toEqual([
          expect.objectContaining({
            level: 'debug',
            threadId: 'ai_test',
            agentRunId: 'run1',
            round: 0,
            operationId: 'run1:0',
            replayIndex: 2,
            committed: true,
            applied: true,
            toolCalls: 1,
          }),
          expect.objectContaining({
            level: 'debug',
            round: 1,
            operationId: 'run1:1',
            replayIndex: 0,
            committed: true,
            applied: false,
            toolCalls: 0,
          }),
        ]);
        const starts = logs.filter((entry) => entry.event === 'llm_call_start' && entry.round !== undefined);
        expect(starts.map((entry) => [entry.round, entry.operationId])).toEqual([
          [0, 'run1:0'],
          [1, 'run1:1'],
        ]);
        const traced = starts[0].recentMessages as Array<{ role: string; content: string }>;
        expect(traced).toHaveLength(8);
        expect(traced.at(-1)?.content).toBe('Mail [email] my key [key] please');
        expect(JSON.stringify(logs)).not.toMatch(/alice@example\.com|sk-proj/);
        expect((starts[1].recentMessages as Array<{ role: string }>).at(-1)).toMatchObject({
          role: 'tool',
          toolCallId: 'c1',
        });
      } finally {
        configureLogging({ level: 'info', aiDebug: false });
      }
    });

    it('traces a call that fails with no commit', async () => {
      configureLogging({ level: 'debug' });
      try {
        server.enqueue({ error: { status: 401, message: 'bad key' } });
        const { request } = harness();
        await expect(loopWith(openAi()).run(request)).rejects.toMatchObject({ code: 'auth_error' });
        expect(logs.filter((entry) => entry.event === 'llm_round')).toEqual([
          expect.objectContaining({
            round: 0,
            operationId: 'run1:0',
            committed: false,
            applied: false,
            error: 'auth_error',
          }),
        ]);
      } finally {
        configureLogging({ level: 'info' });
      }
    });
  });

  describe('context-length recovery', () => {
    let small: ScriptedLlmServer;
    // The 14 tool definitions alone are ~4,400 tokens as the scripted server counts them.
    const LIMIT = 8_000;
    const bigContext = (chars: number): LlmMessage => ({
      role: 'system',
      content: `[RAG context] ${'node fetch-api calls the API; '.repeat(chars / 30)}`,
    });

    beforeAll(async () => {
      small = await ScriptedLlmServer.start({ contextLength: LIMIT });
    });
    afterAll(async () => {
      await small.close();
    });
    beforeEach(() => small.reset());

    const loopOn = () =>
      new AgentLoop(
        {
          provider: new OpenAiCompatibleProvider({
            providerName: 'openai',
            baseURL: small.openAiBaseUrl,
            apiKey: 'sk-test',
            model: 'gpt-4o',
          }),
          tokenTracker: pricedTracker(),
          tokenCounter: new TokenCounter(),
          classifier: new LlmErrorClassifier('en'),
        },
        { maxToolRounds: 5 },
      );

    it('retries once with the smaller context the caller builds, and answers', async () => {
      small.enqueue({ text: 'Answered from a smaller context.' });
      const { request, commits } = harness();
      request.messages = [question[0], bigContext(20_000), question[1]];
      const shrink = jest.fn(async () => [question[0], bigContext(2_000), question[1]]);
      request.shrinker = { shrink };
      const outcome = await loopOn().run(request);

      expect(outcome).toMatchObject({
        type: 'message',
        text: 'Answered from a smaller context.',
        stats: { stopReason: 'answer' },
      });
      expect(shrink).toHaveBeenCalledTimes(1);
      expect(small.requests).toHaveLength(2);
      expect(JSON.stringify(small.requests[1].body.messages).length).toBeLessThan(
        JSON.stringify(small.requests[0].body.messages).length / 4,
      );
      expect(commits).toHaveLength(1);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 'warn', event: 'context_length_retry', threadId: 'ai_test' }),
      );
      expect(request.usage.report()).toMatchObject({ llmCalls: 2 });
    });

    it('cuts the run’s own tool results shorter once it recovered, and keeps them whole in the commits', async () => {
      small.enqueue({
        toolCalls: [{ id: 'c1', name: 'explore_neighborhood', arguments: { nodeKey: 'root', maxDepth: 3 } }],
      });
      const { request, commits } = harness();
      request.messages = [question[0], question[1]];
      // The first call fits; its tool result makes the second too long, which the retry's cut results fix.
      request.shrinker = { shrink: async () => [question[0], question[1]] };
      small.enqueue((recorded) => ({ text: `saw ${JSON.stringify(recorded.body.messages).length}` }));
      const tooLong = 'x'.repeat(10_000);
      const toolbox = request.tools;
      request.tools = {
        definitions: toolbox.definitions,
        route: (call) => toolbox.route(call),
        beginReply: () => toolbox.beginReply(),
        // A read result far above what a read tool sends (a large graph's neighbourhood).
        executeRead: async () =>
          JSON.stringify({
            key: 'root',
            nodes: Array.from({ length: 40 }, (_, index) => ({ key: `n${index}`, note: tooLong.slice(0, 400) })),
          }),
      };
      const outcome = await loopOn().run(request);
      expect(outcome.type).toBe('message');
      const stored = commits[0].messages.find((message) => message.role === 'tool') as LlmToolMessage;
      expect(stored.content.length).toBeGreaterThan(15_000);
      const sent = small.requests.at(-1)!.body.messages.find((message: { role: string }) => message.role === 'tool');
      expect(sent.content.length).toBeLessThanOrEqual(COMPACT_TOOL_RESULT_MAX_CHARS);
      expect(JSON.parse(sent.content)._truncated).toBeDefined();
    });

    it('fails with context_length when the smaller context is still too long, or when there is none', async () => {
      const { request } = harness();
      request.messages = [question[0], bigContext(20_000), question[1]];
      request.shrinker = { shrink: async () => [question[0], bigContext(18_000), question[1]] };
      await expect(loopOn().run(request)).rejects.toMatchObject({ code: 'context_length' });
      expect(small.requests).toHaveLength(2);

      small.reset();
      const second = harness();
      second.request.messages = [question[0], bigContext(20_000), question[1]];
      await expect(loopOn().run(second.request)).rejects.toMatchObject({ code: 'context_length' });
      expect(small.requests).toHaveLength(1);
    });
  });
});

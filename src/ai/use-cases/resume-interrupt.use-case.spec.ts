import { AgentHarness, RecordingSink } from '../../../test/support/agent.harness';
import { RecordedRequest, ScriptedLlmServer, ScriptedToolCall } from '../../../test/support/scripted-llm-server';
import { Principal } from '../../auth/principal';
import { AgentResult } from '../agent/agent-result';
import { ResumeInterrupt } from './resume-interrupt.use-case';
import { HitlOutcome } from '../hitl.observer';
import { TokenLimitError } from '../../providers/token-limit.error';

const GRAPH = 'nba-workflow';
const editor: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };

type WireMessage = { role: string; content: unknown; tool_call_id?: string };
const toolResultOf = (request: RecordedRequest, toolCallId: string): Record<string, unknown> => {
  const message = (request.body.messages as WireMessage[]).find((candidate) => candidate.tool_call_id === toolCallId);
  if (!message) throw new Error(`no tool result for ${toolCallId} in request ${request.index}`);
  return JSON.parse(String(message.content)) as Record<string, unknown>;
};
const signal = () => new AbortController().signal;

const logNodeArguments = {
  nodeKey: 'log-errors',
  typeKey: 'log-node',
  sheet: '0',
  posX: 820,
  posY: 300,
  reason: 'Log the fetch errors',
};
const createLogNode: ScriptedToolCall = { id: 'call_create', name: 'propose_create_node', arguments: logNodeArguments };

describe(`${ResumeInterrupt.name} (human in the loop)`, () => {
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
  });
  afterEach(async () => {
    await harness.close();
  });

  const start = async (env: Record<string, string> = {}, provider = 'openai') => {
    harness = await AgentHarness.create({ env: { ...server.providerEnv(provider), ...env } });
  };

  const ask = (message: string, threadId?: string, sink = new RecordingSink()) =>
    harness.agent.chat(editor, { graphKey: GRAPH, message, ...(threadId ? { threadId } : {}) }, sink, signal());

  const interruptOf = (result: AgentResult) => {
    if (result.type !== 'interrupt' || result.interrupt.kind !== 'approval')
      throw new Error(`expected an approval, got ${result.type}`);
    return result.interrupt;
  };

  it('interrupts on a write call with the proposal and its preview, then applies it on approval (HITL_APPLY=server)', async () => {
    await start();
    server.enqueue({ text: 'I propose a log node.', toolCalls: [createLogNode] }, { text: 'Added the log node.' });
    const sink = new RecordingSink();
    const interrupted = await ask('Add a node that logs fetch errors', undefined, sink);

    expect(interrupted).toMatchObject({ type: 'interrupt', message: 'I propose a log node.' });
    const interrupt = interruptOf(interrupted);
    expect(interrupt).toMatchObject({
      kind: 'approval',
      toolCallId: 'call_create',
      proposedAction: {
        type: 'create_node',
        payload: { nodeKey: 'log-errors', typeKey: 'log-node' },
        reason: 'Log the fetch errors',
      },
      preview: { sheetId: '0', nodesToCreate: [{ _key: 'log-errors', type: 'log-node', graphKey: GRAPH }] },
    });
    expect(sink.completed).toEqual(interrupted);
    expect(sink.types).not.toContain('tool_start');
    expect(await harness.graph().getNodeByKey(GRAPH, 'log-errors')).toBeNull();
    expect((await harness.agent.getThread(editor, interrupted.threadId)).pendingInterrupt).toEqual(interrupt);
    expect((await harness.agent.listThreads(editor, GRAPH))[0].pendingInterrupt).toBe(true);
    expect(interrupted.usage.llmCalls).toBe(1);
    expect((await harness.threadService.load(editor, interrupted.threadId)).usage.llmCalls).toBe(1);

    const resumeSink = new RecordingSink();
    const resumed = await harness.agent.resume(
      editor,
      { threadId: interrupted.threadId, approved: true },
      resumeSink,
      signal(),
    );

    expect(resumed).toMatchObject({
      type: 'message',
      message: 'Added the log node.',
      resolution: { toolCallId: 'call_create', status: 'approved', appliedBy: 'server', changes: interrupt.preview },
    });
    expect(await harness.graph().getNodeByKey(GRAPH, 'log-errors')).toMatchObject({
      type: 'log-node',
      posX: 820,
      sheet: '0',
    });
    expect(toolResultOf(server.requests[1], 'call_create')).toEqual({
      status: 'approved',
      message: 'The user approved the proposal and it was applied to the graph.',
    });
    expect(resumeSink.types[0]).toBe('thread');
    expect(resumeSink.events[1]).toEqual({
      type: 'tool_start',
      toolCallId: 'call_create',
      toolName: 'propose_create_node',
    });
    expect(resumeSink.types.at(-1)).toBe('complete');
    expect((await harness.agent.getThread(editor, interrupted.threadId)).pendingInterrupt).toBeNull();
  });

  it('sends a proposal on a sheet that does not exist back to the model as an error; the corrected one (sheet by name) interrupts', async () => {
    await start();
    const onSheet = (id: string, sheet: string): ScriptedToolCall => ({
      ...createLogNode,
      id,
      arguments: { ...logNodeArguments, sheet },
    });
    server.enqueue({ toolCalls: [onSheet('call_bad', 'errors')] }, { toolCalls: [onSheet('call_fixed', 'main')] });
    const sink = new RecordingSink();
    const interrupted = await ask('Add a node that logs fetch errors', undefined, sink);

    const refusal = toolResultOf(server.requests[1], 'call_bad');
    expect(refusal).toMatchObject({ status: 'error' });
    expect(refusal.message).toContain(
      'Sheet "errors" does not exist. Valid sheets (id and name): "0" (main), "1" (data-processing)',
    );
    expect(interrupted.toolCalls.map((call) => [call.id, call.status])).toEqual([
      ['call_bad', 'error'],
      ['call_fixed', 'proposed'],
    ]);
    // The name the model saw in the context became the sheet's id, in the proposal and its preview.
    expect(interruptOf(interrupted)).toMatchObject({
      toolCallId: 'call_fixed',
      proposedAction: { type: 'create_node', payload: { nodeKey: 'log-errors', sheet: '0' } },
      preview: { sheetId: '0', nodesToCreate: [{ _key: 'log-errors', sheet: '0' }] },
    });
    expect(sink.types).not.toContain('tool_start');
    expect(interrupted.usage.llmCalls).toBe(2);
  });

  it('with HITL_APPLY=client hands the change set back without touching the graph', async () => {
    await start({ HITL_APPLY: 'client' });
    server.enqueue({ toolCalls: [createLogNode] }, { text: 'Your editor will add it.' });
    const interrupted = await ask('Add a log node');
    const resumed = await harness.agent.resume(
      editor,
      { threadId: interrupted.threadId, approved: true },
      new RecordingSink(),
      signal(),
    );

    //: the resolution carries the decision's operation, for the editor to de-duplicate on.
    const { basis: _basis, ...changes } = interruptOf(interrupted).preview;
    expect(resumed.resolution).toEqual({
      toolCallId: 'call_create',
      status: 'approved',
      operationId: `${interrupted.threadId}:call_create`,
      appliedBy: 'client',
      changes: expect.objectContaining(changes),
      message: "The user approved the proposal; it is applied through the user's editor.",
    });
    expect(await harness.graph().getNodeByKey(GRAPH, 'log-errors')).toBeNull();
    expect(toolResultOf(server.requests[1], 'call_create')).toMatchObject({ status: 'approved' });
  });

  it('passes a rejection and its feedback to the model, and changes nothing', async () => {
    await start();
    server.enqueue(
      {
        toolCalls: [
          {
            id: 'call_del',
            name: 'propose_delete_node',
            arguments: { nodeKey: 'disconnected-note', reason: 'unused' },
          },
        ],
      },
      { text: 'Understood, I keep it.' },
    );
    const interrupted = await ask('Clean up the graph');
    const resumed = await harness.agent.resume(
      editor,
      { threadId: interrupted.threadId, approved: false, feedback: 'Keep the note, it documents the sheet' },
      new RecordingSink(),
      signal(),
    );
    expect(resumed).toMatchObject({
      message: 'Understood, I keep it.',
      resolution: { status: 'rejected', appliedBy: null },
    });
    expect(resumed.resolution?.changes).toBeUndefined();
    expect(toolResultOf(server.requests[1], 'call_del')).toEqual({
      status: 'rejected',
      message: 'The user rejected the proposal. Nothing was changed.',
      feedback: 'Keep the note, it documents the sheet',
    });
    expect(await harness.graph().getNodeByKey(GRAPH, 'disconnected-note')).not.toBeNull();
  });

  it('processes the rest of a parallel batch after the resume: reads run, the next write interrupts again', async () => {
    await start();
    server.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } },
          createLogNode,
          { id: 'c3', name: 'read_node_detail', arguments: { nodeKey: 'error-handler' } },
          {
            id: 'c4',
            name: 'propose_create_edge',
            arguments: {
              sourceKey: 'fetch-api',
              sourceHandle: 'R-1',
              targetKey: 'log-errors',
              targetHandle: 'L-0',
              sheet: '0',
              reason: 'wire it',
            },
          },
        ],
      },
      { text: 'Node and edge are in place.' },
    );
    const first = await ask('Log fetch errors in a new node');
    expect(interruptOf(first).toolCallId).toBe('call_create');
    expect(first.toolCalls.map((call) => [call.id, call.status])).toEqual([
      ['c1', 'executed'],
      ['call_create', 'proposed'],
    ]);

    const secondSink = new RecordingSink();
    const second = await harness.agent.resume(
      editor,
      { threadId: first.threadId, approved: true },
      secondSink,
      signal(),
    );
    expect(interruptOf(second)).toMatchObject({ toolCallId: 'c4', proposedAction: { type: 'create_edge' } });
    expect(second.toolCalls.map((call) => [call.id, call.status])).toEqual([
      ['c3', 'executed'],
      ['c4', 'proposed'],
    ]);
    expect(
      secondSink.events
        .filter((event) => event.type === 'tool_start')
        .map((event) => (event as { toolCallId: string }).toolCallId),
    ).toEqual(['call_create', 'c3']);
    expect(server.requests).toHaveLength(1);
    expect(second.usage.llmCalls).toBe(0);

    const third = await harness.agent.resume(
      editor,
      { threadId: first.threadId, approved: true },
      new RecordingSink(),
      signal(),
    );
    expect(third).toMatchObject({ type: 'message', message: 'Node and edge are in place.' });
    expect(server.requests).toHaveLength(2);
    const results = (server.requests[1].body.messages as WireMessage[]).filter((message) => message.role === 'tool');
    expect(results.map((message) => message.tool_call_id)).toEqual(['c1', 'call_create', 'c3', 'c4']);
    expect(await harness.graph().getEdgesOfNode(GRAPH, 'log-errors', 'in')).toEqual([
      expect.objectContaining({ source: 'fetch-api', sourceHandle: 'R-1' }),
    ]);
  });

  it('supersedes a pending proposal with a new message: rejected results for it and the rest of its batch', async () => {
    await start();
    server.enqueue(
      {
        toolCalls: [createLogNode, { id: 'c_after', name: 'read_node_detail', arguments: { nodeKey: 'root' } }],
      },
      { text: 'OK, forget the log node.' },
    );
    const interrupted = await ask('Add a log node');
    const answer = await ask('Actually, just tell me what root does', interrupted.threadId);

    expect(answer).toMatchObject({ type: 'message', message: 'OK, forget the log node.' });
    const request = server.requests[1];
    expect(toolResultOf(request, 'call_create')).toEqual({
      status: 'rejected',
      message: 'The proposal was not applied: the user sent a new message instead of answering it.',
      feedback: 'superseded by a new message',
    });
    expect(toolResultOf(request, 'c_after')).toMatchObject({
      status: 'rejected',
      feedback: 'superseded by a new message',
    });
    const roles = (request.body.messages as WireMessage[]).map((message) => message.role);
    // The results, the new question, its DATA_ADDED event, its context.
    expect(roles.slice(-5)).toEqual(['tool', 'tool', 'user', 'system', 'system']);
    expect(await harness.graph().getNodeByKey(GRAPH, 'log-errors')).toBeNull();
    await expect(
      harness.agent.resume(editor, { threadId: interrupted.threadId, approved: true }, new RecordingSink(), signal()),
    ).rejects.toMatchObject({ code: 'conflict', statusCode: 409 });
  });

  it('turns the approval of a proposal whose node was deleted meanwhile into a stale tool result saying what changed', async () => {
    await start();
    server.enqueue(
      {
        toolCalls: [
          {
            id: 'c_upd',
            name: 'propose_update_node',
            arguments: { nodeKey: 'sort-stats', changes: { 'data.top': 5 }, reason: 'top 5' },
          },
        ],
      },
      { text: 'The node is gone, nothing changed.' },
    );
    const interrupted = await ask('Keep only the top 5 players');
    expect(interruptOf(interrupted).preview.sheetId).toBe('1');
    await harness.graph().deleteNode(GRAPH, 'sort-stats');

    const resumed = await harness.agent.resume(
      editor,
      { threadId: interrupted.threadId, approved: true },
      new RecordingSink(),
      signal(),
    );
    // replaces the "failed" outcome of a graph that moved on by "stale".
    expect(resumed).toMatchObject({
      type: 'message',
      resolution: {
        status: 'stale',
        appliedBy: null,
        changed: [{ kind: 'node', key: 'sort-stats', change: 'deleted' }],
      },
    });
    const result = toolResultOf(server.requests[1], 'c_upd');
    expect(result.status).toBe('stale');
    expect(result.changed).toEqual([{ kind: 'node', key: 'sort-stats', change: 'deleted' }]);
    expect((await harness.agent.getThread(editor, interrupted.threadId)).pendingInterrupt).toBeNull();
  });

  it('reports every step of an interrupt to the HITL observer: proposed, then approved, rejected, stale or superseded', async () => {
    const outcomes: HitlOutcome[] = [];
    harness = await AgentHarness.create({
      env: server.providerEnv('openai'),
      hitl: { interrupt: (outcome) => outcomes.push(outcome) },
    });
    const resume = (threadId: string, approved: boolean) =>
      harness.agent.resume(editor, { threadId, approved }, new RecordingSink(), signal());
    const updateSortStats = {
      id: 'c_upd',
      name: 'propose_update_node',
      arguments: { nodeKey: 'sort-stats', changes: { 'data.top': 5 }, reason: 'top 5' },
    };
    server.enqueue(
      { toolCalls: [createLogNode] },
      { text: 'Added.' },
      // The first one exists by then: each later proposal names a new key (an existing one is refused before any interrupt).
      {
        toolCalls: [
          { ...createLogNode, id: 'call_second', arguments: { ...logNodeArguments, nodeKey: 'log-errors-2' } },
        ],
      },
      { text: 'Not added.' },
      { toolCalls: [updateSortStats] },
      { text: 'It was gone.' },
      {
        toolCalls: [
          { ...createLogNode, id: 'call_third', arguments: { ...logNodeArguments, nodeKey: 'log-errors-3' } },
        ],
      },
      { text: 'Something else then.' },
    );

    await resume((await ask('Add a log node')).threadId, true);
    expect(outcomes).toEqual(['proposed', 'approved']);
    await resume((await ask('Add another log node')).threadId, false);
    expect(outcomes.slice(2)).toEqual(['proposed', 'rejected']);
    const failing = await ask('Keep only the top 5 players');
    await harness.graph().deleteNode(GRAPH, 'sort-stats');
    await resume(failing.threadId, true);
    expect(outcomes.slice(4)).toEqual(['proposed', 'stale']);
    const superseded = await ask('Add a third log node');
    await ask('Never mind', superseded.threadId);
    expect(outcomes.slice(6)).toEqual(['proposed', 'superseded']);
  });

  it('lets exactly one of two racing resumes apply the action; the other gets 409', async () => {
    await start();
    server.enqueue({ toolCalls: [createLogNode] }, { text: 'Done once.', delayMs: 20 }, { text: 'must not be used' });
    const interrupted = await ask('Add a log node');

    const outcomes = await Promise.allSettled([
      harness.agent.resume(editor, { threadId: interrupted.threadId, approved: true }, new RecordingSink(), signal()),
      harness.agent.resume(editor, { threadId: interrupted.threadId, approved: true }, new RecordingSink(), signal()),
    ]);
    const fulfilled = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const rejected = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(['thread_busy', 'conflict']).toContain(rejected[0].reason.code);
    expect(rejected[0].reason.statusCode).toBe(409);

    const nodes = await harness.graph().getNodes(GRAPH);
    expect(nodes.filter((node) => node._key === 'log-errors')).toHaveLength(1);
    const thread = await harness.threadService.load(editor, interrupted.threadId);
    expect(
      thread.messages.filter((message) => message.role === 'tool' && message.toolCallId === 'call_create'),
    ).toHaveLength(1);

    await expect(
      harness.agent.resume(editor, { threadId: interrupted.threadId, approved: true }, new RecordingSink(), signal()),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('runs the whole round trip over the Anthropic wire', async () => {
    await start({}, 'anthropic');
    server.enqueue(
      {
        text: 'Proposing a move.',
        toolCalls: [
          {
            id: 'toolu_move',
            name: 'propose_move_node',
            arguments: { nodeKey: 'return', posX: 1500, posY: 100, reason: 'align' },
          },
        ],
      },
      { text: 'Moved.' },
    );
    const interrupted = await ask('Align the return node');
    expect(interruptOf(interrupted).preview.instructions).toEqual([
      { nodeKey: 'return', op: 'set', path: ['posX'], value: 1500, animatePos: true },
      { nodeKey: 'return', op: 'set', path: ['posY'], value: 100, animatePos: true },
    ]);
    const resumed = await harness.agent.resume(
      editor,
      { threadId: interrupted.threadId, approved: true },
      new RecordingSink(),
      signal(),
    );
    expect(resumed.message).toBe('Moved.');
    expect(await harness.graph().getNodeByKey(GRAPH, 'return')).toMatchObject({ posX: 1500, posY: 100 });
    const blocks = (server.requests[1].body.messages as Array<{ content: unknown }>).flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>)
        : [],
    );
    const result = blocks.find((block) => block.type === 'tool_result' && block.tool_use_id === 'toolu_move');
    expect(JSON.stringify(result?.content)).toContain('approved');
  });

  it("keeps an automation's budget on the resume of its interrupt: a spent one refuses before any upstream call", async () => {
    const told: string[] = [];
    harness = await AgentHarness.create({
      env: server.providerEnv('openai'),
      automations: {
        runEnded: async (end) => {
          told.push(`${end.kind}:${end.error ? 'failed' : (end.result?.type ?? '')}`);
        },
        settingsOf: async () => ({
          budget: {
            assertWithin: () => {
              throw new TokenLimitError('cost', 0.01, 0.02, 'en');
            },
          },
        }),
      },
    });
    server.enqueue({ toolCalls: [createLogNode] });
    const interrupted = await harness.agent.runAutomation(
      {
        acting: { principal: editor, automation: { automationId: 'aut_1', onBehalfOf: editor.userId } },
        graphKey: GRAPH,
        prompt: 'Log the fetch errors.',
        title: 'Logger',
      },
      new RecordingSink(),
      signal(),
    );
    expect(interrupted.type).toBe('interrupt');
    await expect(
      harness.agent.resume(editor, { threadId: interrupted.threadId, approved: true }, new RecordingSink(), signal()),
    ).rejects.toMatchObject({ code: 'budget_exceeded' });
    expect(server.requests).toHaveLength(1);
    expect(await harness.graph().getNodeByKey(GRAPH, 'log-errors')).toBeNull();
    expect(told).toEqual(['automation:interrupt', 'resume:failed']);
  });
});

import { AgentHarness, RecordingSink } from '../../../test/support/agent.harness';
import { RecordedRequest, ScriptedLlmServer } from '../../../test/support/scripted-llm-server';
import { Principal } from '../../auth/principal';
import type { MessageSegment } from '../../conversation/rich-message';
import type { ThreadEvent } from '../../conversation/thread-event';
import { AppError } from '../../errors/app-error';
import { nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';

const GRAPH = 'nba-workflow';
const editor: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };
const signal = () => new AbortController().signal;

type WireMessage = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest): WireMessage[] => request.body.messages;
const contextOf = (request: RecordedRequest): string =>
  String(messagesOf(request).find((message) => String(message.content).startsWith('[RAG context'))?.content);
const dataAddedOf = (sink: RecordingSink): ThreadEvent => {
  const found = sink.events.find(
    (event): event is { type: 'event'; event: ThreadEvent } =>
      event.type === 'event' && event.event.type === 'DATA_ADDED',
  );
  if (!found) throw new Error('no DATA_ADDED event');
  return found.event;
};
const text = (value: string): MessageSegment => ({ type: 'text', text: value });

describe('QuestionRun with rich messages', () => {
  let server: ScriptedLlmServer;
  let harness: AgentHarness;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(async () => {
    await harness.close();
  });

  const open = async (env: Record<string, string> = {}) => {
    server.reset();
    harness = await AgentHarness.create({ env: { ...server.providerEnv('openai'), ...env } });
  };

  const ask = async (segments: MessageSegment[], extra: { message?: string; mentions?: string[] } = {}) => {
    const sink = new RecordingSink();
    const result = await harness.agent.chat(editor, { graphKey: GRAPH, segments, ...extra }, sink, signal());
    return { result, sink };
  };

  describe('blocks', () => {
    beforeEach(() => open());

    it('sends the linear text, loads each block into the context and lists each result in DATA_ADDED; stores the segments', async () => {
      server.enqueue({ text: 'It calls the API; filter keeps the active players.' });
      const segments: MessageSegment[] = [
        text('Why does'),
        { type: 'block', block: 'pointer', config: { nodeKeys: ['fetch-api'] }, preview: 'fetch-api [API]' },
        text('fail, and could'),
        { type: 'block', block: 'use', config: { nodeType: 'filter' }, preview: 'Filter' },
        text('help?'),
      ];
      const { result, sink } = await ask(segments);

      expect(result.type).toBe('message');
      const sent = messagesOf(server.requests[0]);
      const question = sent.find((message) => message.role === 'user');
      // The preview is user text: kept on its line, its brackets unable to close the marker.
      expect(question?.content).toBe(
        'Why does [block 1 pointer: fetch-api (API)] fail, and could [block 2 use: Filter] help?',
      );
      const context = contextOf(server.requests[0]);
      expect(context).toContain('DATA ATTACHED BY THE USER');
      expect(context).toContain('## Block 1 pointer: node fetch-api');
      expect(context).toContain('## Block 2 use: node type filter');
      expect(context).toContain('### Node type filter: its configuration');
      expect(context).toContain('### Node type filter: the schema of its data');
      expect(context).toContain('### Node type filter: data of 1 of its 1 node');
      expect(context).toMatch(/### Node type filter: where it is used\nnodes: 1 \(filter-active\)/);

      const event = dataAddedOf(sink);
      expect(event.summary).toMatch(/2 attached blocks/);
      const blocks = event.results.filter((item) => item.label.startsWith('block '));
      expect(blocks).toEqual([
        expect.objectContaining({ ok: true, label: 'block 1 pointer node fetch-api', segment: 1 }),
        expect.objectContaining({ ok: true, label: 'block 2 use node type filter', segment: 3 }),
      ]);
      expect(blocks[1].detail).toMatch(/used by 1 node on sheet main/);

      const view = await harness.agent.getThread(editor, result.threadId);
      const user = view.messages.find((message) => message.role === 'user');
      expect(user?.segments).toEqual(segments);
      expect(user?.content).toBe(question?.content);
      expect(view.messages.find((message) => message.role === 'event')?.event).toEqual(event);
    });

    it('loads an edge with its ends, a sheet, a new node type’s schema and defaults, and a node’s configuration', async () => {
      server.enqueue({ text: 'Done reading.' });
      const edge = nbaWorkflowDemo.edges[0];
      const { sink } = await ask([
        text('Look at'),
        { type: 'block', block: 'pointer', config: { edgeKeys: [edge._key], sheet: '1' }, preview: 'edge and sheet' },
        { type: 'block', block: 'create', config: { nodeType: 'api-call' }, preview: 'API Call' },
        { type: 'block', block: 'modify_config', config: { nodeKey: 'sort-stats' }, preview: 'sort-stats' },
      ]);
      const context = contextOf(server.requests[0]);
      expect(context).toContain(
        `### Edge ${edge._key}\n${edge._key}: ${edge.source}:${edge.sourceHandle} -> ${edge.target}`,
      );
      expect(context).toContain('### Sheet 1 (data-processing): its nodes and edges');
      expect(context).toContain('### Node type api-call: defaults of a new node');
      expect(context).toMatch(
        /### Node type api-call: defaults of a new node[^\n]*\ntype: api-call\nhandles: L:in\(any\)/,
      );
      expect(context).toContain('### Node sort-stats: its whole configuration\ntype: transform');
      expect(context).toContain('### Node type transform: the schema of its data (inferred from 1 node of this graph)');
      const results = dataAddedOf(sink).results.filter((item) => item.label.startsWith('block '));
      expect(results.map((item) => [item.ok, item.label])).toEqual([
        [true, `block 1 pointer edge ${edge._key}; sheet 1`],
        [true, 'block 2 create node type api-call'],
        [true, 'block 3 modify_config node sort-stats'],
      ]);
      // The edge's ends are pinned among the retrieved nodes, ahead of the search hits.
      expect(context.indexOf(edge.source)).toBeGreaterThan(-1);
    });

    it('fails a block naming what the graph lacks, and another workspace’s keys the same way', async () => {
      await harness.graphStore.importGraph('other', {
        graph: { _key: 'secret-graph', workspace: 'other', name: 'Secret', sheetsList: { '0': 'main' } },
        nodes: [
          {
            _key: 'secret-node',
            graphKey: 'secret-graph',
            type: 'vault',
            sheet: '0',
            posX: 0,
            posY: 0,
            data: { password: 'hunter2' },
          },
        ],
        edges: [],
        nodeConfigs: [{ _key: 'vault', workspace: 'other', displayName: 'Vault' }],
      });
      server.enqueue({ text: 'Nothing to see.' });
      const { result, sink } = await ask([
        text('Compare'),
        { type: 'block', block: 'pointer', config: { nodeKeys: ['secret-node'] }, preview: 'secret' },
        { type: 'block', block: 'pointer', config: { nodeKeys: ['ghost-node'] }, preview: 'ghost' },
        { type: 'block', block: 'use', config: { nodeType: 'vault' }, preview: 'Vault' },
        { type: 'block', block: 'use', config: { nodeType: 'unicorn' }, preview: 'Unicorn' },
        { type: 'block', block: 'modify_config', config: { nodeKey: 'secret-node' }, preview: 'secret' },
        { type: 'block', block: 'pointer', config: { sheet: '7' }, preview: 'sheet 7' },
      ]);
      expect(result.type).toBe('message');
      const results = dataAddedOf(sink).results.filter((item) => item.label.startsWith('block '));
      expect(results).toEqual([
        { ok: false, label: 'block 1 pointer node secret-node', detail: 'not found: node secret-node', segment: 1 },
        { ok: false, label: 'block 2 pointer node ghost-node', detail: 'not found: node ghost-node', segment: 2 },
        { ok: false, label: 'block 3 use node type vault', detail: 'not found: node type vault', segment: 3 },
        { ok: false, label: 'block 4 use node type unicorn', detail: 'not found: node type unicorn', segment: 4 },
        {
          ok: false,
          label: 'block 5 modify_config node secret-node',
          detail: 'not found: node secret-node',
          segment: 5,
        },
        { ok: false, label: 'block 6 pointer sheet 7', detail: 'not found: sheet 7', segment: 6 },
      ]);
      const everything = JSON.stringify(server.requests[0].body);
      expect(everything).not.toContain('hunter2');
      expect(everything).not.toContain('displayName: Vault');
      expect(everything).not.toContain('secret-graph');
    });

    it('checks a proposal creating a node of a create block’s type against its schema before a human sees it', async () => {
      const create = (id: string, data: unknown) => ({
        id,
        name: 'propose_create_node',
        arguments: {
          nodeKey: 'keep-stars',
          typeKey: 'filter',
          sheet: '0',
          posX: 900,
          posY: 300,
          data,
          reason: 'Keep stars',
        },
      });
      server.enqueue(
        { toolCalls: [create('call_bad', { minGames: 'ten' })] },
        { text: 'Proposing it again.', toolCalls: [create('call_good', { minGames: 25 })] },
      );
      const { result } = await ask([
        text('Add a'),
        { type: 'block', block: 'create', config: { nodeType: 'filter' }, preview: 'Filter' },
        text('that keeps players with 25 games or more'),
      ]);
      expect(result).toMatchObject({ type: 'interrupt', interrupt: { kind: 'approval', toolCallId: 'call_good' } });
      const refused = messagesOf(server.requests[1]).find(
        (message) => (message as { tool_call_id?: string }).tool_call_id === 'call_bad',
      );
      expect(JSON.parse(String(refused?.content))).toEqual({
        status: 'error',
        message:
          "The proposal was not shown to the user: the data of a node it creates does not match its type's data schema. " +
          'The new node "keep-stars" of type "filter": data.minGames must be a number, got string "ten". Correct it and call the tool again.',
      });
      expect(contextOf(server.requests[0])).toContain('"minGames":{"type":"number"}');
    });

    it('refuses malformed segments before anything runs', async () => {
      const bad = async (segments: unknown, message?: string) => {
        const error = await harness.agent
          .chat(
            editor,
            { graphKey: GRAPH, segments: segments as MessageSegment[], message },
            new RecordingSink(),
            signal(),
          )
          .then(
            () => null,
            (thrown: unknown) => thrown,
          );
        expect(error).toBeInstanceOf(AppError);
        return (error as AppError).message;
      };
      expect(
        await bad([{ type: 'block', block: 'use', config: { nodeType: 'filter', extra: 1 }, preview: 'F' }]),
      ).toMatch(/segments\[0\]\.config has an unknown field "extra"/);
      expect(await bad([{ type: 'block', block: 'teleport', config: {}, preview: 'x' }])).toMatch(
        /block must be one of/,
      );
      expect(await bad([{ type: 'block', block: 'pointer', config: {}, preview: 'x' }])).toMatch(/must name nodeKeys/);
      expect(await bad([{ type: 'block', block: 'use', config: { nodeType: 'a b' }, preview: 'x' }])).toMatch(
        /config\.nodeType/,
      );
      expect(await bad([{ type: 'text', text: 'hi', bold: true }])).toMatch(/unknown field "bold"/);
      expect(await bad([])).toMatch(/must not be empty/);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('de-duplication against level 2 and between blocks', () => {
    beforeEach(() => open());

    it('keeps the prompt prefix byte-identical when a block repeats what level 2 always sends', async () => {
      await harness.alwaysSend.put('default', GRAPH, { nodeKeys: ['fetch-api'], nodeTypes: ['filter'] });
      server.enqueue({ text: 'First.' }, { text: 'Second.' });
      await harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'What does the graph do?' },
        new RecordingSink(),
        signal(),
      );
      const { sink } = await ask([
        text('And'),
        { type: 'block', block: 'pointer', config: { nodeKeys: ['fetch-api'] }, preview: 'fetch-api' },
        { type: 'block', block: 'use', config: { nodeType: 'filter' }, preview: 'Filter' },
        { type: 'block', block: 'use', config: { nodeType: 'filter' }, preview: 'Filter again' },
      ]);

      const [plain, withBlocks] = server.requests.map((request) => messagesOf(request).slice(0, 3));
      expect(withBlocks).toEqual(plain);
      expect(String(plain[1].content)).toContain('ALWAYS SENT for graph nba-workflow');
      expect(String(plain[1].content)).toContain('### Node fetch-api\ntype: api-call');
      const context = contextOf(server.requests[1]);
      expect(context).not.toContain('### Node type filter: its configuration');
      expect(context).toContain('already in the always-sent data above');
      expect(context).toContain('the same data as block 2');
      const results = dataAddedOf(sink).results.filter((item) => item.label.startsWith('block '));
      expect(results[0]).toMatchObject({ ok: true, detail: 'node fetch-api already in the always-sent data' });
      expect(results[1].detail).toMatch(/configuration of node type filter already in the always-sent data/);
      expect(results[2].detail).toMatch(/data schema of filter as in block 2/);
    });
  });

  describe('token management', () => {
    it('asks a chat before sending an over-large prompt; a yes sends it, with nothing asked twice', async () => {
      await open({ AI_CONFIRM_ABOVE_TOKENS: '100' });
      const sink = new RecordingSink();
      const asked = await harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'What does fetch-api do?' },
        sink,
        signal(),
      );

      expect(server.requests).toHaveLength(0);
      expect(asked.type).toBe('interrupt');
      if (asked.type !== 'interrupt') throw new Error('expected an interrupt');
      expect(asked.interrupt).toMatchObject({ kind: 'question', questionKind: 'confirm' });
      const estimate = asked.interrupt.kind === 'question' ? asked.interrupt.estimate : undefined;
      expect(estimate?.tokens).toBeGreaterThan(100);
      expect(estimate?.costUsd).toBeGreaterThan(0);
      expect(asked.interrupt.kind === 'question' && asked.interrupt.question).toContain(
        `about ${estimate?.tokens.toLocaleString('en-US')} tokens`,
      );
      expect(sink.types).toContain('event');

      server.enqueue({ text: 'It calls the NBA API.' });
      const resumed = await harness.agent.resume(
        editor,
        { threadId: asked.threadId, approved: true },
        new RecordingSink(),
        signal(),
      );
      expect(resumed).toMatchObject({ type: 'message', message: 'It calls the NBA API.' });
      expect(server.requests).toHaveLength(1);
      const sent = messagesOf(server.requests[0]);
      expect(sent.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
        'What does fetch-api do?',
      ]);
      // No tool call of the model was answered: no tool message.
      expect(sent.some((message) => message.role === 'tool')).toBe(false);
      const thread = await harness.threadService.load(editor, asked.threadId);
      expect(thread.pendingInterrupt).toBeNull();
    });

    it('ends a declined confirmation without an upstream call; the thread goes on', async () => {
      await open({ AI_CONFIRM_ABOVE_TOKENS: '100' });
      const asked = await harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'Big question' },
        new RecordingSink(),
        signal(),
      );
      const declined = await harness.agent.resume(
        editor,
        { threadId: asked.threadId, approved: false },
        new RecordingSink(),
        signal(),
      );
      expect(declined).toMatchObject({ type: 'message', message: '', notSent: { reason: 'declined' } });
      expect(server.requests).toHaveLength(0);
      const thread = await harness.threadService.load(editor, asked.threadId);
      expect(thread.pendingInterrupt).toBeNull();
      expect(thread.messages.filter((message) => message.role === 'tool')).toHaveLength(0);
    });

    it('lets a new message supersede the confirmation without a dangling tool result', async () => {
      await open({ AI_CONFIRM_ABOVE_TOKENS: '100' });
      const asked = await harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'Big question' },
        new RecordingSink(),
        signal(),
      );
      const again = await harness.agent.chat(
        editor,
        { graphKey: GRAPH, threadId: asked.threadId, message: 'Smaller one' },
        new RecordingSink(),
        signal(),
      );
      expect(again.type).toBe('interrupt');
      const thread = await harness.threadService.load(editor, asked.threadId);
      expect(thread.messages.filter((message) => message.role === 'tool')).toHaveLength(0);
      expect(server.requests).toHaveLength(0);
    });

    it('ends an automation over the limit not sent, with no upstream call', async () => {
      await open({ AI_CONFIRM_ABOVE_TOKENS: '100' });
      const result = await harness.agent.runAutomation(
        {
          acting: { principal: editor, automation: { automationId: 'aut_1', onBehalfOf: editor.userId } },
          graphKey: GRAPH,
          prompt: 'Summarize the graph.',
          title: 'Summary',
        },
        new RecordingSink(),
        signal(),
      );
      expect(result).toMatchObject({ type: 'message', notSent: { reason: 'too_large' } });
      expect(result.type === 'message' && result.message).toMatch(/^Not sent: its prompt was about [\d,]+ tokens/);
      expect(server.requests).toHaveLength(0);
    });

    it('sends a prompt under the limit without asking', async () => {
      await open({ AI_CONFIRM_ABOVE_TOKENS: '1000000' });
      server.enqueue({ text: 'Fine.' });
      const sink = new RecordingSink();
      const result = await harness.agent.chat(editor, { graphKey: GRAPH, message: 'Hi' }, sink, signal());
      expect(result).toMatchObject({ type: 'message', message: 'Fine.' });
      expect(server.requests).toHaveLength(1);
    });
  });
});

import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ActionPolicyController } from '../../src/policy/action-policy.controller';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer, ScriptedToolCall } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'policy-e2e-secret-of-at-least-32-chars!';
const GRAPH = 'nba-workflow';

const sign = (sub: string, role: string, workspace = 'default') =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 });
const admin = sign('ada', 'admin');
const editor = sign('eddie', 'editor');
const viewer = sign('vera', 'viewer');
const stranger = sign('stan', 'editor');
const otherAdmin = sign('olga', 'admin', 'other-workspace');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

type Message = { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] };
type Tool = { function: { name: string; parameters: { properties?: Record<string, any> } } };

const createNode = (id: string, nodeKey: string): ScriptedToolCall => ({
  id,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 820, posY: 300, reason: 'Log the fetch errors' },
});
const deleteNode = (id: string, nodeKey: string): ScriptedToolCall => ({
  id,
  name: 'propose_delete_node',
  arguments: { nodeKey, reason: 'Not used' },
});
const askUser = (id: string, args: Record<string, unknown>): ScriptedToolCall => ({
  id,
  name: 'ask_user',
  arguments: args,
});

describe(`Action policy, questions and thread events (${ActionPolicyController.name}, end to end)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const clients: AiSocketClient[] = [];

  const connect = async (token: string) => {
    const client = await AiSocketClient.connect(app.url, { token });
    clients.push(client);
    return client;
  };
  const putPolicy = (body: object, token = admin) => request(app.url).put('/api/ai/policy').set(as(token)).send(body);
  const graphNodes = async () =>
    (await request(app.url).get(`/api/graphs/${GRAPH}`).set(as(editor)).expect(200)).body.nodes.map(
      (node: { _key: string }) => node._key,
    );
  /** What the model was sent as the result of a call, in the request that followed it. */
  const toolResultSent = (callId: string): Record<string, unknown> => {
    for (const recorded of server.requests) {
      const found = (recorded.body.messages as Message[]).find(
        (message) => message.role === 'tool' && message.tool_call_id === callId,
      );
      if (found) return JSON.parse(found.content as string);
    }
    throw new Error(`no tool result for ${callId} was sent`);
  };
  const toolNames = (index: number) =>
    ((server.requests[index].body.tools ?? []) as Tool[]).map((tool) => tool.function.name);

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await putPolicy({}).expect(200);
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  describe('GET and PUT /api/ai/policy', () => {
    it('answers the empty policy before any is stored, then the stored one with its time', async () => {
      const fresh = await request(app.url).get('/api/ai/policy').set(as(otherAdmin)).expect(200);
      expect(fresh.body).toEqual({ default: {}, roles: {} });

      const policy = {
        default: { create_node: 'autonomous', delete_edge: 'forbidden' },
        roles: { admin: { delete_edge: 'ask_first' } },
      };
      const stored = await putPolicy(policy).expect(200);
      expect(stored.body).toEqual({ ...policy, updatedTime: expect.any(Number) });
      await expect(request(app.url).get('/api/ai/policy').set(as(viewer)).expect(200)).resolves.toMatchObject({
        body: stored.body,
      });
      // A GET answer can be sent back as it is.
      await putPolicy(stored.body).expect(200);
    });

    it('lets admins only replace it', async () => {
      for (const token of [editor, viewer]) {
        const refused = await putPolicy({ default: { create_node: 'autonomous' } }, token).expect(403);
        expect(refused.body).toMatchObject({ code: 'forbidden' });
      }
      await expect(request(app.url).get('/api/ai/policy').set(as(editor))).resolves.toMatchObject({
        body: { default: {} },
      });
    });

    it.each([
      ['an unknown kind', { default: { teleport_node: 'autonomous' } }, 'default.teleport_node'],
      ['an unknown level', { default: { create_node: 'sometimes' } }, 'default.create_node'],
      ['a null level', { default: { create_node: null } }, 'default.create_node'],
      ['an unknown role', { roles: { viewer: { create_node: 'autonomous' } } }, 'roles.viewer'],
      ['an unknown field', { default: {}, version: 2 }, 'version'],
      ['levels that are not an object', { default: 'autonomous' }, 'default'],
    ])('refuses %s with 400 and keeps the stored policy', async (_what, body, field) => {
      await putPolicy({ default: { move_node: 'autonomous' } }).expect(200);
      const refused = await putPolicy(body).expect(400);
      expect(refused.body).toMatchObject({
        code: 'bad_request',
        details: expect.arrayContaining([expect.objectContaining({ field })]),
      });
      await expect(request(app.url).get('/api/ai/policy').set(as(admin))).resolves.toMatchObject({
        body: { default: { move_node: 'autonomous' } },
      });
    });

    it("runs under its own workspace's policy only", async () => {
      const exported = (await request(app.url).get(`/api/graphs/${GRAPH}`).set(as(admin)).expect(200)).body;
      const imported = { ...exported, graph: { ...exported.graph, workspace: 'other-workspace' } };
      await request(app.url).put(`/api/graphs/${GRAPH}`).set(as(otherAdmin)).send(imported).expect(200);
      await putPolicy({ default: { create_node: 'autonomous' } }).expect(200);
      server.enqueue({ toolCalls: [createNode('call_other_ws', 'log-other-ws')] });
      const other = await request(app.url)
        .post('/api/ai/chat')
        .set(as(otherAdmin))
        .send({ graphKey: GRAPH, message: 'Add a log node' })
        .expect(200);
      expect(other.body).toMatchObject({
        type: 'interrupt',
        interrupt: { kind: 'approval', toolCallId: 'call_other_ws' },
      });
    });

    it("keeps each workspace's policy apart", async () => {
      await putPolicy({ default: { delete_node: 'forbidden' } }).expect(200);
      await putPolicy({ default: { delete_node: 'autonomous' } }, otherAdmin).expect(200);
      await expect(request(app.url).get('/api/ai/policy').set(as(editor))).resolves.toMatchObject({
        body: { default: { delete_node: 'forbidden' } },
      });
      await expect(request(app.url).get('/api/ai/policy').set(as(otherAdmin))).resolves.toMatchObject({
        body: { default: { delete_node: 'autonomous' } },
      });
      await putPolicy({}, otherAdmin).expect(200);
    });

    it('is documented in Swagger', async () => {
      const paths = (await request(app.url).get('/docs-json').expect(200)).body.paths;
      expect(paths['/api/ai/policy'].get).toBeDefined();
      expect(Object.keys(paths['/api/ai/policy'].put.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '403']),
      );
    });
  });

  describe('over Socket.IO', () => {
    it('neither offers nor describes a forbidden kind, and refuses a forced call without applying anything', async () => {
      await putPolicy({ default: { delete_node: 'forbidden' } }).expect(200);
      server.enqueue(
        { toolCalls: [deleteNode('call_forced', 'disconnected-note')] },
        { text: 'I may not delete nodes here.' },
      );
      const client = await connect(editor);

      const answer = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Delete disconnected-note' });
      expect(answer.complete).toMatchObject({ fullText: 'I may not delete nodes here.' });
      expect(answer.complete!.interrupt).toBeUndefined();
      expect(toolNames(0)).not.toContain('propose_delete_node');
      expect(toolNames(0)).toEqual(expect.arrayContaining(['propose_create_node', 'propose_batch', 'ask_user']));
      const batch = (server.requests[0].body.tools as Tool[]).find((tool) => tool.function.name === 'propose_batch')!;
      expect(JSON.stringify(batch.function.parameters)).not.toContain('delete_node');
      const prompt = (server.requests[0].body.messages as Message[])[0].content as string;
      // The prompt names no kind: what is offered, and what becomes of it, is the tool list (docs/policy.md).
      expect(prompt).toContain("each write tool's description says which");
      expect(prompt).not.toContain('delete_node');

      expect(toolResultSent('call_forced')).toMatchObject({
        status: 'error',
        message: expect.stringContaining('forbids delete_node'),
      });
      expect(answer.names).not.toContain('ai:tool_start');
      expect(await graphNodes()).toContain('disconnected-note');
    });

    it('applies an autonomous create without an interrupt: it is in the graph when ai:complete arrives', async () => {
      await putPolicy({ default: { create_node: 'autonomous' } }).expect(200);
      server.enqueue(
        { text: 'Adding a log node. ', toolCalls: [createNode('call_auto', 'log-auto')] },
        { text: 'log-auto now logs the errors.' },
      );
      const client = await connect(editor);

      const answer = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Log the fetch errors' });
      expect(await graphNodes()).toContain('log-auto');
      expect(answer.complete).toMatchObject({ fullText: 'Adding a log node. log-auto now logs the errors.' });
      expect(answer.complete!.interrupt).toBeUndefined();

      const start = answer.names.indexOf('ai:tool_start');
      expect(answer.events[start].payload).toEqual({
        _id: 1,
        seq: start + 1,
        toolCallId: 'call_auto',
        toolName: 'propose_create_node',
      });
      expect(answer.names[start + 1]).toBe('ai:tool_result');
      expect(JSON.parse((answer.events[start + 1].payload as { result: string }).result)).toMatchObject({
        status: 'applied',
        appliedBy: 'server',
      });
      expect(toolResultSent('call_auto')).toMatchObject({ status: 'applied' });

      const events = answer.events.filter((event) => event.event === 'ai:event').map((event) => event.payload as any);
      expect(events.map((event) => event.event.type)).toEqual(['DATA_ADDED', 'ACTIONS_EXECUTED']);
      expect(events[1]).toEqual({
        _id: 1,
        seq: answer.names.lastIndexOf('ai:event') + 1,
        threadId: answer.complete!.threadId,
        event: {
          type: 'ACTIONS_EXECUTED',
          summary: 'Created 1 node on sheet main',
          results: [{ ok: true, label: 'create_node log-auto', detail: 'type log-node' }],
          // docs/protocol.md §9.1: the operations an event records.
          operationIds: [`${answer.complete!.threadId}:call_auto`],
        },
      });
      // DATA_ADDED comes before the answer's first token, ACTIONS_EXECUTED after the round's tool result.
      expect(answer.names.indexOf('ai:event')).toBeLessThan(answer.names.indexOf('ai:token'));
      expect(answer.names.lastIndexOf('ai:event')).toBeGreaterThan(start + 1);
      // The model's next call saw the event as a [SYSTEM] line after the tool result.
      const sent = server.requests[1].body.messages as Message[];
      const result = sent.findIndex((message) => message.tool_call_id === 'call_auto');
      expect(sent[result + 1]).toEqual({
        role: 'system',
        content: '[SYSTEM] Created 1 node on sheet main\n  ✓ create_node log-auto: type log-node',
      });
    });

    it('refuses an ask_first delete, asks, and after a yes applies it', async () => {
      await putPolicy({ default: { delete_node: 'ask_first' } }).expect(200);
      server.enqueue(
        { toolCalls: [deleteNode('call_first_try', 'error-handler')] },
        {
          text: 'May I?',
          toolCalls: [
            askUser('call_ask', {
              kind: 'confirm',
              question: 'Delete error-handler?',
              forAction: { kind: 'delete_node', target: 'error-handler' },
            }),
          ],
        },
        { toolCalls: [deleteNode('call_second_try', 'error-handler')] },
        { text: 'Deleted.' },
      );
      const client = await connect(editor);

      const asked = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Remove error-handler' });
      expect(toolResultSent('call_first_try')).toMatchObject({
        status: 'error',
        message: expect.stringContaining('ask_user'),
      });
      expect(asked.complete!.interrupt).toEqual({
        kind: 'question',
        toolCallId: 'call_ask',
        questionKind: 'confirm',
        question: 'Delete error-handler?',
        forAction: { kind: 'delete_node', target: 'error-handler' },
      });
      expect(await graphNodes()).toContain('error-handler');

      const resumed = await client.resume({ _id: 2, threadId: asked.complete!.threadId, approved: true });
      expect(resumed.events[1].payload).toEqual({ _id: 2, seq: 2, toolCallId: 'call_ask', toolName: 'ask_user' });
      expect(resumed.complete).toMatchObject({ fullText: 'Deleted.' });
      expect(resumed.complete!.interrupt).toBeUndefined();
      expect(toolResultSent('call_ask')).toEqual({
        status: 'answered',
        answer: 'yes',
        allows: { kind: 'delete_node', target: 'error-handler' },
      });
      expect(toolResultSent('call_second_try')).toMatchObject({ status: 'applied' });
      expect(await graphNodes()).not.toContain('error-handler');
    });

    it('lets a viewer answer a question in their own thread, not approve a proposal; another user gets not_found', async () => {
      server.enqueue(
        {
          toolCalls: [
            askUser('call_viewer_q', {
              kind: 'choice',
              question: 'Which sheet?',
              options: ['main', 'data-processing'],
            }),
          ],
        },
        { text: 'Main it is.' },
      );
      const client = await connect(viewer);
      const asked = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Explain a sheet' });
      const threadId = asked.complete!.threadId;
      expect(toolNames(0)).toContain('ask_user');
      expect(toolNames(0).filter((name) => name.startsWith('propose_'))).toEqual([]);

      const strangerClient = await connect(stranger);
      const foreign = await strangerClient.resume({ _id: 1, threadId, approved: true, answer: 'main' });
      expect(foreign.error).toMatchObject({ code: 'not_found' });

      const answered = await client.resume({ _id: 2, threadId, approved: true, answer: 'main' });
      expect(answered.complete).toMatchObject({ fullText: 'Main it is.' });
      expect(toolResultSent('call_viewer_q')).toEqual({ status: 'answered', answer: 'main' });
    });
    it('refuses an answer outside the options over the socket (bad_request), the question still pending, then takes a valid one', async () => {
      server.enqueue(
        {
          toolCalls: [
            askUser('call_sock_q', { kind: 'choice', question: 'Which sheet?', options: ['main', 'data-processing'] }),
          ],
        },
        { text: 'On main.' },
      );
      const client = await connect(editor);
      const asked = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Add something' });
      const threadId = asked.complete!.threadId;
      const refused = await client.resume({ _id: 2, threadId, approved: true, answer: 'errors' });
      expect(refused.names).toEqual(['ai:thread', 'ai:error']);
      expect(refused.error).toMatchObject({ code: 'bad_request' });
      expect(
        (await request(app.url).get(`/api/ai/thread/${threadId}`).set(as(editor)).expect(200)).body.pendingInterrupt,
      ).toMatchObject({ toolCallId: 'call_sock_q' });
      const answered = await client.resume({ _id: 3, threadId, approved: true, answer: 'main' });
      expect(answered.complete).toMatchObject({ fullText: 'On main.' });
    });
  });

  describe('over REST', () => {
    it('refuses a forbidden kind and an ask_first one until the yes, then applies it', async () => {
      await putPolicy({ default: { delete_edge: 'forbidden', move_node: 'ask_first' } }).expect(200);
      const move = (id: string): ScriptedToolCall => ({
        id,
        name: 'propose_move_node',
        arguments: { nodeKey: 'sort-stats', posX: 1234, posY: 56, reason: 'Tidy' },
      });
      server.enqueue(
        {
          toolCalls: [
            {
              id: 'call_rest_forced',
              name: 'propose_delete_edge',
              arguments: { edgeKey: 'display-html-to-return', reason: 'x' },
            },
            move('call_rest_move1'),
          ],
        },
        {
          toolCalls: [
            askUser('call_rest_ask', {
              kind: 'confirm',
              question: 'Move sort-stats?',
              forAction: { kind: 'move_node', target: 'sort-stats' },
            }),
          ],
        },
        { toolCalls: [move('call_rest_move2')] },
        { text: 'Moved.' },
      );
      const asked = await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, message: 'Tidy up' })
        .expect(200);
      expect(toolNames(0)).not.toContain('propose_delete_edge');
      expect(asked.body).toMatchObject({
        type: 'interrupt',
        interrupt: { kind: 'question', questionKind: 'confirm' },
        toolCalls: [
          expect.objectContaining({ id: 'call_rest_forced', status: 'error' }),
          expect.objectContaining({ id: 'call_rest_move1', status: 'error' }),
          expect.objectContaining({ id: 'call_rest_ask', status: 'asked' }),
        ],
      });
      expect(toolResultSent('call_rest_forced')).toMatchObject({
        status: 'error',
        message: expect.stringContaining('forbids delete_edge'),
      });
      expect(toolResultSent('call_rest_move1')).toMatchObject({
        status: 'error',
        message: expect.stringContaining('ask_user'),
      });
      const exported = async () =>
        (await request(app.url).get(`/api/graphs/${GRAPH}`).set(as(editor)).expect(200)).body;
      expect((await exported()).edges.map((edge: { _key: string }) => edge._key)).toContain('display-html-to-return');

      const resumed = await request(app.url)
        .post('/api/ai/resume')
        .set(as(editor))
        .send({ threadId: asked.body.threadId, approved: true })
        .expect(200);
      expect(resumed.body).toMatchObject({
        type: 'message',
        message: 'Moved.',
        toolCalls: [expect.objectContaining({ id: 'call_rest_move2', status: 'applied' })],
      });
      expect((await exported()).nodes.find((node: { _key: string }) => node._key === 'sort-stats')).toMatchObject({
        posX: 1234,
        posY: 56,
      });
    });

    it('answers a choice question with one of its options, refuses any other answer and keeps the question pending', async () => {
      server.enqueue(
        {
          text: 'Which one?',
          toolCalls: [askUser('call_choice', { kind: 'choice', question: 'Which season?', options: ['2023', '2024'] })],
        },
        { text: 'Using 2024.' },
      );
      const asked = await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, message: 'Filter the players' })
        .expect(200);
      expect(asked.body).toMatchObject({
        type: 'interrupt',
        interrupt: {
          kind: 'question',
          toolCallId: 'call_choice',
          questionKind: 'choice',
          question: 'Which season?',
          options: ['2023', '2024'],
        },
        toolCalls: [expect.objectContaining({ id: 'call_choice', name: 'ask_user', status: 'asked' })],
      });
      const threadId = asked.body.threadId;

      const refused = await request(app.url)
        .post('/api/ai/resume')
        .set(as(editor))
        .send({ threadId, approved: true, answer: '2025' })
        .expect(400);
      expect(refused.body).toMatchObject({ code: 'bad_request', details: { options: ['2023', '2024'] } });
      expect(
        (await request(app.url).get(`/api/ai/thread/${threadId}`).set(as(editor)).expect(200)).body.pendingInterrupt,
      ).toMatchObject({ kind: 'question' });
      expect(server.requests).toHaveLength(1);

      const answered = await request(app.url)
        .post('/api/ai/resume')
        .set(as(editor))
        .send({ threadId, approved: true, answer: '2024' })
        .expect(200);
      expect(answered.body).toMatchObject({ type: 'message', message: 'Using 2024.' });
      expect(toolResultSent('call_choice')).toEqual({ status: 'answered', answer: '2024' });
    });

    it('refuses invalid ask_user calls back to the model, never to the user', async () => {
      server.enqueue(
        { toolCalls: [askUser('call_bad_q', { kind: 'choice', question: 'Which?', options: ['only one'] })] },
        { text: 'Never mind.' },
      );
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, message: 'Ask me something' })
        .expect(200);
      expect(answer.body).toMatchObject({ type: 'message', message: 'Never mind.' });
      expect(toolResultSent('call_bad_q')).toMatchObject({
        status: 'error',
        message: expect.stringContaining('at least 2'),
      });
    });

    it('applies an autonomous batch, stops at a proposal that needs approval, and lists DATA_ADDED and ACTIONS_EXECUTED in the thread in order', async () => {
      await putPolicy({
        default: { create_node: 'autonomous', create_edge: 'autonomous', batch: 'autonomous' },
      }).expect(200);
      const batch: ScriptedToolCall = {
        id: 'call_batch',
        name: 'propose_batch',
        arguments: {
          reason: 'Log the errors',
          actions: [
            { type: 'create_node', nodeKey: 'log-batch', typeKey: 'log-node', sheet: '0', posX: 900, posY: 300 },
            {
              type: 'create_edge',
              edgeKey: 'to-log-batch',
              sourceKey: 'fetch-api',
              sourceHandle: 'R-1',
              targetKey: 'log-batch',
              targetHandle: 'L-0',
              sheet: '0',
            },
          ],
        },
      };
      server.enqueue({ toolCalls: [batch, deleteNode('call_delete', 'disconnected-note')] }, { text: 'Done.' });

      const asked = await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, message: 'Log errors and clean up' })
        .expect(200);
      expect(asked.body).toMatchObject({
        type: 'interrupt',
        interrupt: { kind: 'approval', toolCallId: 'call_delete' },
        toolCalls: [
          expect.objectContaining({ id: 'call_batch', status: 'applied' }),
          expect.objectContaining({ id: 'call_delete', status: 'proposed' }),
        ],
        events: [
          expect.objectContaining({ type: 'DATA_ADDED' }),
          expect.objectContaining({ type: 'ACTIONS_EXECUTED', summary: 'Created 1 node and 1 edge on sheet main' }),
        ],
      });
      expect(await graphNodes()).toContain('log-batch');

      const resumed = await request(app.url)
        .post('/api/ai/resume')
        .set(as(editor))
        .send({ threadId: asked.body.threadId, approved: true })
        .expect(200);
      expect(resumed.body).toMatchObject({
        type: 'message',
        message: 'Done.',
        events: [
          expect.objectContaining({ type: 'ACTIONS_EXECUTED', summary: 'Deleted 1 node on sheet data-processing' }),
        ],
      });

      const thread = (await request(app.url).get(`/api/ai/thread/${asked.body.threadId}`).set(as(editor)).expect(200))
        .body;
      expect(
        thread.messages.map(
          (message: { role: string; event?: { type: string } }) => message.event?.type ?? message.role,
        ),
      ).toEqual([
        'user',
        'DATA_ADDED',
        'assistant',
        'tool',
        'ACTIONS_EXECUTED',
        'tool',
        'ACTIONS_EXECUTED',
        'assistant',
      ]);
      const dataAdded = thread.messages[1];
      expect(dataAdded).toEqual({
        // docs/protocol.md §9.4: every message carries the id undo and restore name.
        id: expect.any(String),
        role: 'event',
        event: {
          type: 'DATA_ADDED',
          summary: expect.stringMatching(/^Loaded \d+ nodes? and \d+ edges? into the context \(~[\d,]+ tokens\)$/),
          results: expect.any(Array),
        },
        content: dataAdded.event.summary,
        createdTime: expect.any(Number),
      });
      // The model is sent the events as [SYSTEM] lines after the results of their assistant message; the batch's own
      // event waits while the message still has a call without result (the resume's call), the tool result told it.
      const roles = (index: number) =>
        (server.requests[index].body.messages as Message[]).map((message) =>
          message.role === 'system' && message.content?.startsWith('[SYSTEM]')
            ? message.content.split('\n')[0]
            : message.role,
        );
      // The question, its DATA_ADDED event, the retrieved context (a system message of level 4), then the run's rounds.
      expect(roles(1).slice(-7)).toEqual([
        'user',
        expect.stringMatching(/^\[SYSTEM\] Loaded /),
        'system',
        'assistant',
        'tool',
        'tool',
        '[SYSTEM] Deleted 1 node on sheet data-processing',
      ]);
      server.enqueue({ text: 'Nothing else.' });
      await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, threadId: asked.body.threadId, message: 'Anything else?' })
        .expect(200);
      // After the three stable prompt levels (docs/agent.md, "Prompt levels") and the first question.
      expect(roles(2).slice(4, 11)).toEqual([
        expect.stringMatching(/^\[SYSTEM\] Loaded /),
        'assistant',
        'tool',
        'tool',
        '[SYSTEM] Created 1 node and 1 edge on sheet main',
        '[SYSTEM] Deleted 1 node on sheet data-processing',
        'assistant',
      ]);
    });

    it('keeps a run on the policy it started with: a proposal made before the kind was forbidden is still applied on approval', async () => {
      server.enqueue({ toolCalls: [createNode('call_before', 'log-before')] }, { text: 'Added.' });
      const asked = await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, message: 'Add a log node' })
        .expect(200);
      expect(asked.body).toMatchObject({
        type: 'interrupt',
        interrupt: { kind: 'approval', toolCallId: 'call_before' },
      });

      await putPolicy({ default: { create_node: 'forbidden' } }).expect(200);
      const resumed = await request(app.url)
        .post('/api/ai/resume')
        .set(as(editor))
        .send({ threadId: asked.body.threadId, approved: true })
        .expect(200);
      expect(resumed.body).toMatchObject({ type: 'message', resolution: { status: 'approved', appliedBy: 'server' } });
      expect(await graphNodes()).toContain('log-before');
      // The resume's own call still offered what the run started with; the next message follows the new policy.
      expect(toolNames(1)).toContain('propose_create_node');
      server.enqueue({ text: 'Noted.' });
      await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, threadId: asked.body.threadId, message: 'Thanks' })
        .expect(200);
      expect(toolNames(2)).not.toContain('propose_create_node');
    });

    it('settles a pending question as declined when a new message comes first', async () => {
      server.enqueue(
        { toolCalls: [askUser('call_pending', { kind: 'confirm', question: 'Go on?' })] },
        { text: 'Sure, something else then.' },
      );
      const asked = await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, message: 'Do the thing' })
        .expect(200);
      await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, threadId: asked.body.threadId, message: 'Actually, something else' })
        .expect(200);
      expect(toolResultSent('call_pending')).toEqual({ status: 'declined', feedback: 'superseded by a new message' });
    });
  });

  describe('across a restart, and with HITL_APPLY=client', () => {
    it('keeps the policy after a restart, and hands autonomous actions to the editor with ai:apply and AgentResult.actions', async () => {
      await putPolicy({ default: { create_node: 'autonomous' } }).expect(200);
      const dataDir = app.dataDir;
      await app.close({ keepData: true });
      app = await startTestApp({
        ...server.providerEnv('openai'),
        EMBEDDING_PROVIDER: 'local',
        AUTH_MODE: 'jwt',
        JWT_SECRET: SECRET,
        HITL_APPLY: 'client',
        SEED_DEMO: 'false',
        DATA_DIR: dataDir,
      });
      await expect(request(app.url).get('/api/ai/policy').set(as(editor))).resolves.toMatchObject({
        body: { default: { create_node: 'autonomous' } },
      });

      server.enqueue({ toolCalls: [createNode('call_client', 'log-client')] }, { text: 'Sent.' });
      const client = await connect(editor);
      const answer = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Log the errors' });
      const apply = answer.events.find((event) => event.event === 'ai:apply')!.payload as any;
      expect(apply).toMatchObject({
        _id: 1,
        threadId: answer.complete!.threadId,
        operationId: `${answer.complete!.threadId}:call_client`,
        toolCallId: 'call_client',
        proposedAction: { type: 'create_node', payload: { nodeKey: 'log-client' } },
        preview: { nodesToCreate: [expect.objectContaining({ _key: 'log-client' })] },
      });
      expect(toolResultSent('call_client')).toMatchObject({ status: 'applied', appliedBy: 'client' });
      expect(await graphNodes()).not.toContain('log-client');

      server.enqueue({ toolCalls: [createNode('call_client_rest', 'log-client-rest')] }, { text: 'Sent.' });
      const rest = await request(app.url)
        .post('/api/ai/chat')
        .set(as(editor))
        .send({ graphKey: GRAPH, message: 'Log the errors' })
        .expect(200);
      expect(rest.body.actions).toEqual([
        {
          // docs/protocol.md §9.1: AgentResult.actions[] items carry their operation id.
          operationId: `${rest.body.threadId}:call_client_rest`,
          toolCallId: 'call_client_rest',
          proposedAction: expect.objectContaining({ type: 'create_node' }),
          preview: expect.objectContaining({ sheetId: '0' }),
        },
      ]);
    });
  });
});

import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AiChatClient } from '../../client/src/ai-chat.client';
import { AiApiError, AiRestClient } from '../../client/src/ai-rest.client';
import { OperationService } from '../../src/changes/operation.service';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer, ScriptedToolCall } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'changes-e2e-secret-of-at-least-32-chars!';
const GRAPH = 'nba-workflow';

const sign = (sub: string, role: string) => jwt.sign({ sub, workspace: 'default', role }, SECRET, { expiresIn: 600 });
const editor = sign('eddie', 'editor');
const other = sign('olive', 'editor');
const admin = sign('ada', 'admin');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

type Message = { role: string; content: string | null; tool_call_id?: string };

const createNode = (id: string, nodeKey: string, extra: Record<string, unknown> = {}): ScriptedToolCall => ({
  id,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 820, posY: 300, reason: 'Log the errors', ...extra },
});
const updateNode = (id: string, nodeKey: string, changes: Record<string, unknown>): ScriptedToolCall => ({
  id,
  name: 'propose_update_node',
  arguments: { nodeKey, changes, reason: 'Tune it' },
});

/**
 * Every applied change is an operation, through the real REST and Socket.IO API: its
 * operation id, its place in the change log, a stale proposal applying nothing, part of a batch approved, undo and
 * restore that never overwrite a later human edit.
 */
describe(`Changes of a graph as operations (${OperationService.name}, end to end)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const clients: AiSocketClient[] = [];

  const api = () => request(app.url);
  const chat = (message: string, threadId?: string, token = editor) =>
    api()
      .post('/api/ai/chat')
      .set(as(token))
      .send({ graphKey: GRAPH, message, ...(threadId ? { threadId } : {}) })
      .expect(200);
  const resume = (body: object, token = editor) => api().post('/api/ai/resume').set(as(token)).send(body);
  const node = async (key: string) =>
    (
      (await api().get(`/api/graphs/${GRAPH}`).set(as(admin)).expect(200)).body.nodes as Array<Record<string, unknown>>
    ).find((item) => item._key === key);
  const edgeKeys = async () =>
    ((await api().get(`/api/graphs/${GRAPH}`).set(as(admin)).expect(200)).body.edges as Array<{ _key: string }>).map(
      (edge) => edge._key,
    );
  /** A human's edit, saved through the sync server's feed. */
  const humanEdit = async (key: string, changes: Record<string, unknown>) => {
    const current = await node(key);
    await api()
      .post(`/api/graphs/${GRAPH}/changes`)
      .set(as(admin))
      .send({ upsertNodes: [{ ...current, ...changes }], saved: true })
      .expect(202);
  };
  const thread = async (threadId: string, token = editor) =>
    (await api().get(`/api/ai/thread/${threadId}`).set(as(token)).expect(200)).body;
  const changes = async (threadId: string, token = editor) =>
    (await api().get(`/api/ai/thread/${threadId}/changes`).set(as(token)).expect(200)).body;
  const toolResultSent = (callId: string): Record<string, unknown> => {
    for (const recorded of [...server.requests].reverse()) {
      const found = (recorded.body.messages as Message[]).find(
        (message) => message.role === 'tool' && message.tool_call_id === callId,
      );
      if (found) return JSON.parse(found.content as string);
    }
    throw new Error(`no tool result for ${callId} was sent`);
  };

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
  beforeEach(() => server.reset());
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it('applies an approval as one operation: its id in the resolution, its record in the change log, its message', async () => {
    server.enqueue({ toolCalls: [createNode('call_op', 'log-op')] }, { text: 'Added.' });
    const proposed = await chat('Add a log node');
    expect(proposed.body.interrupt.preview.basis).toEqual({
      graphRevision: expect.any(String),
      nodes: { 'log-op': null },
      edges: {},
    });
    const { threadId } = proposed.body;
    const resumed = await resume({ threadId, approved: true }).expect(200);
    expect(resumed.body.resolution).toMatchObject({
      status: 'approved',
      operationId: `${threadId}:call_op`,
      appliedBy: 'server',
    });
    const proposal = (await thread(threadId)).messages.find(
      (message: { toolCalls?: Array<{ id: string }> }) => message.toolCalls?.[0]?.id === 'call_op',
    );
    expect(await changes(threadId)).toEqual([
      {
        operationId: `${threadId}:call_op`,
        messageId: proposal.id,
        toolCallId: 'call_op',
        appliedTime: expect.any(Number),
        actor: { userId: 'eddie', role: 'editor', via: 'approval' },
        appliedBy: 'server',
        changes: expect.objectContaining({ nodesToCreate: [expect.objectContaining({ _key: 'log-op' })] }),
        inverse: expect.objectContaining({ nodeKeysToDelete: ['log-op'] }),
      },
    ]);
    const executed = (await thread(threadId)).messages.find(
      (message: { event?: { type: string } }) => message.event?.type === 'ACTIONS_EXECUTED',
    );
    expect(executed.event.operationIds).toEqual([`${threadId}:call_op`]);
    // A second approval of the decided proposal finds nothing pending (the first answer stands).
    await resume({ threadId, approved: true }).expect(409);
  });

  it('refuses a stale proposal (a touched node changed since): nothing applied, the model told what changed', async () => {
    server.enqueue({ toolCalls: [updateNode('call_stale', 'fetch-api', { 'data.timeoutMs': 9000 })] });
    const proposed = await chat('Raise the timeout of fetch-api');
    expect(Object.keys(proposed.body.interrupt.preview.basis.nodes)).toEqual(['fetch-api']);
    await humanEdit('fetch-api', { posX: 123 });
    server.enqueue({ text: 'It changed; I will look again.' });
    const resumed = await resume({ threadId: proposed.body.threadId, approved: true }).expect(200);
    expect(resumed.body.resolution).toMatchObject({
      status: 'stale',
      appliedBy: null,
      changed: [{ kind: 'node', key: 'fetch-api', change: 'modified' }],
    });
    expect(((await node('fetch-api'))?.data as Record<string, unknown>)?.timeoutMs).not.toBe(9000);
    expect(toolResultSent('call_stale')).toMatchObject({
      status: 'stale',
      changed: [{ kind: 'node', key: 'fetch-api', change: 'modified' }],
    });
    expect(await changes(proposed.body.threadId)).toEqual([]);
  });

  it('applies a proposal when only untouched parts of the graph changed', async () => {
    server.enqueue({ toolCalls: [updateNode('call_fresh', 'sort-stats', { 'data.top': 7 })] });
    const proposed = await chat('Keep the top 7');
    await humanEdit('filter-active', { posY: 77 });
    server.enqueue({ text: 'Done.' });
    const resumed = await resume({ threadId: proposed.body.threadId, approved: true }).expect(200);
    expect(resumed.body.resolution).toMatchObject({ status: 'approved' });
    expect(((await node('sort-stats'))?.data as Record<string, unknown>)?.top).toBe(7);
  });

  describe('part of a batch', () => {
    const batch: ScriptedToolCall = {
      id: 'call_batch',
      name: 'propose_batch',
      arguments: {
        reason: 'Log the errors and tidy up',
        actions: [
          { type: 'create_node', nodeKey: 'log-batch', typeKey: 'log-node', sheet: '0', posX: 900, posY: 400 },
          {
            type: 'create_edge',
            edgeKey: 'edge-batch',
            sourceKey: 'fetch-api',
            sourceHandle: 'R-1',
            targetKey: 'log-batch',
            targetHandle: 'L-0',
            sheet: '0',
          },
          { type: 'move_node', nodeKey: 'return', posX: 1500, posY: 50 },
        ],
      },
    };

    it('lists the items, refuses an inconsistent subset with a 400 naming the item, then applies the approved ones only', async () => {
      server.enqueue({ toolCalls: [batch] });
      const proposed = await chat('Log the errors, and tidy up');
      const { threadId, interrupt } = proposed.body;
      expect(interrupt.preview.items).toEqual([
        { itemId: 'i1', type: 'create_node', description: 'New log-node node "log-batch"' },
        { itemId: 'i2', type: 'create_edge', description: 'New edge fetch-api:R-1 → log-batch:L-0' },
        { itemId: 'i3', type: 'move_node', description: 'Node "return" moves to (1500, 50)' },
      ]);

      const refused = await resume({ threadId, approved: true, approvedItems: ['i2', 'i3'] }).expect(400);
      expect(refused.body).toMatchObject({ code: 'bad_request', message: expect.stringContaining('Item i2') });
      expect((await thread(threadId)).pendingInterrupt).toMatchObject({ toolCallId: 'call_batch' });

      server.enqueue({ text: 'Added the node and moved return; no edge.' });
      const resumed = await resume({ threadId, approved: true, approvedItems: ['i1', 'i3'] }).expect(200);
      expect(resumed.body.resolution).toMatchObject({
        status: 'approved',
        appliedItems: ['i1', 'i3'],
        declinedItems: ['i2'],
      });
      expect(await node('log-batch')).toBeDefined();
      expect((await node('return'))?.posX).toBe(1500);
      expect(await edgeKeys()).not.toContain('edge-batch');
      expect(toolResultSent('call_batch')).toMatchObject({
        status: 'approved',
        appliedItems: [
          { itemId: 'i1', description: expect.any(String) },
          { itemId: 'i3', description: expect.any(String) },
        ],
        declinedItems: [{ itemId: 'i2', description: 'New edge fetch-api:R-1 → log-batch:L-0' }],
      });
    });
  });

  describe('undo and restore', () => {
    const approveNode = async (callId: string, nodeKey: string, threadId?: string) => {
      server.enqueue({ toolCalls: [createNode(callId, nodeKey)] }, { text: `Added ${nodeKey}.` });
      const proposed = await chat(`Add ${nodeKey}`, threadId);
      await resume({ threadId: proposed.body.threadId, approved: true }).expect(200);
      return proposed.body.threadId as string;
    };

    it("undoes the latest message's changes as an operation of its own, which can be undone too, and tells the model", async () => {
      const threadId = await approveNode('call_undo', 'log-undo');
      const undone = await api().post(`/api/ai/thread/${threadId}/undo`).set(as(editor)).send({}).expect(200);
      expect(undone.body).toEqual({
        threadId,
        operationId: expect.stringMatching(new RegExp(`^${threadId}:undo:`)),
        reverted: [`${threadId}:call_undo`],
        refused: [],
        event: expect.objectContaining({
          type: 'ACTIONS_REVERTED',
          summary: expect.stringMatching(/^Reverted 1 operation/),
        }),
      });
      expect(await node('log-undo')).toBeUndefined();
      const log = await changes(threadId);
      expect(log.map((item: { actor: { via: string } }) => item.actor.via)).toEqual(['approval', 'undo']);
      expect(log[0].revertedBy).toBe(undone.body.operationId);

      // The event is in the thread and the model sees it in its history.
      const view = await thread(threadId);
      const event = view.messages.find(
        (message: { event?: { type: string } }) => message.event?.type === 'ACTIONS_REVERTED',
      );
      expect(event.id).toEqual(expect.any(String));
      server.enqueue({ text: 'Understood.' });
      await chat('Is it gone?', threadId);
      const sent = server.requests.at(-1)!.body.messages as Message[];
      expect(
        sent.some((message) => message.role === 'system' && String(message.content).startsWith('[SYSTEM] Reverted')),
      ).toBe(true);

      // Undoing the revert (its event's message) puts the node back.
      const redone = await api()
        .post(`/api/ai/thread/${threadId}/undo`)
        .set(as(editor))
        .send({ messageId: event.id })
        .expect(200);
      expect(redone.body.reverted).toEqual([undone.body.operationId]);
      expect(await node('log-undo')).toBeDefined();
    });

    it('never overwrites a later human edit: that part is refused with changed_since, the rest reverted', async () => {
      server.enqueue(
        {
          toolCalls: [
            {
              id: 'call_two',
              name: 'propose_batch',
              arguments: {
                reason: 'two nodes',
                actions: [
                  { type: 'create_node', nodeKey: 'kept-by-human', typeKey: 'log-node', sheet: '0', posX: 1, posY: 1 },
                  { type: 'create_node', nodeKey: 'reverted-one', typeKey: 'log-node', sheet: '0', posX: 2, posY: 2 },
                ],
              },
            },
          ],
        },
        { text: 'Added both.' },
      );
      const proposed = await chat('Add two nodes');
      await resume({ threadId: proposed.body.threadId, approved: true }).expect(200);
      await humanEdit('kept-by-human', { posX: 555 });
      const undone = await api()
        .post(`/api/ai/thread/${proposed.body.threadId}/undo`)
        .set(as(editor))
        .send({})
        .expect(200);
      expect(undone.body.refused).toEqual([
        {
          kind: 'node',
          key: 'kept-by-human',
          reason: 'changed_since',
          operationId: `${proposed.body.threadId}:call_two`,
        },
      ]);
      expect((await node('kept-by-human'))?.posX).toBe(555);
      expect(await node('reverted-one')).toBeUndefined();
    });

    it('restores the graph to what it was after a message: every later change reverted, newest first', async () => {
      const threadId = await approveNode('call_r1', 'restore-one');
      const before = (await thread(threadId)).messages.filter((message: { role: string }) => message.role === 'user');
      await approveNode('call_r2', 'restore-two', threadId);
      await approveNode('call_r3', 'restore-three', threadId);
      const restored = await api()
        .post(`/api/ai/thread/${threadId}/restore`)
        .set(as(editor))
        .send({ messageId: before.at(-1).id })
        .expect(200);
      expect(restored.body.reverted).toEqual([`${threadId}:call_r3`, `${threadId}:call_r2`, `${threadId}:call_r1`]);
      for (const key of ['restore-one', 'restore-two', 'restore-three']) expect(await node(key)).toBeUndefined();
    });

    it('is for editors and admins of the thread: a viewer 403, another user 404, nothing to undo 409', async () => {
      const threadId = await approveNode('call_rights', 'log-rights');
      const viewer = sign('eddie', 'viewer');
      expect(
        (await api().post(`/api/ai/thread/${threadId}/undo`).set(as(viewer)).send({}).expect(403)).body,
      ).toMatchObject({
        code: 'forbidden',
      });
      await api().post(`/api/ai/thread/${threadId}/undo`).set(as(other)).send({}).expect(404);
      await api().get(`/api/ai/thread/${threadId}/changes`).set(as(other)).expect(404);
      await api().post(`/api/ai/thread/${threadId}/undo`).set(as(editor)).send({ unknown: true }).expect(400);
      await api().post(`/api/ai/thread/${threadId}/restore`).set(as(editor)).send({}).expect(400);
      await api().post(`/api/ai/thread/${threadId}/undo`).set(as(editor)).send({}).expect(200);
      expect(
        (await api().post(`/api/ai/thread/${threadId}/undo`).set(as(editor)).send({}).expect(409)).body,
      ).toMatchObject({ code: 'conflict' });
    });

    it('over Socket.IO: ai:undo gets ai:thread, the ACTIONS_REVERTED ai:event, then ai:reverted', async () => {
      const threadId = await approveNode('call_socket', 'log-socket');
      const client = await AiSocketClient.connect(app.url, { token: editor });
      clients.push(client);
      const answer = await client.undo({ _id: 7, threadId });
      expect(answer.names).toEqual(['ai:thread', 'ai:event', 'ai:reverted']);
      expect(answer.events[2].payload).toMatchObject({
        _id: 7,
        seq: 3,
        threadId,
        reverted: [`${threadId}:call_socket`],
        refused: [],
        event: { type: 'ACTIONS_REVERTED' },
      });
      expect(await node('log-socket')).toBeUndefined();
      // Nothing left to undo: REST's 409 conflict is a bad_request on the socket.
      const refused = await client.undo({ _id: 8, threadId });
      expect(refused.error).toMatchObject({ _id: 8, code: 'bad_request', retryable: false });
    });

    it('through the client package: part of a batch approved, the change log, restore and undo (AiChatClient, AiRestClient)', async () => {
      const socket = new AiChatClient({ url: app.url, token: editor, transports: ['websocket'] });
      const rest = new AiRestClient({ url: app.url, token: editor });
      try {
        server.enqueue({
          toolCalls: [
            {
              id: 'call_cb',
              name: 'propose_batch',
              arguments: {
                reason: 'Three nodes',
                actions: ['client-a', 'client-b', 'client-c'].map((nodeKey, index) => ({
                  type: 'create_node',
                  nodeKey,
                  typeKey: 'log-node',
                  sheet: '0',
                  posX: 100 * index,
                  posY: 900,
                })),
              },
            },
          ],
        });
        const proposed = await socket.chat({ graphKey: GRAPH, message: 'Add three nodes' }).done;
        if (proposed.type !== 'complete') throw new Error(JSON.stringify(proposed));
        const { threadId } = proposed.event;
        expect(proposed.event.interrupt).toMatchObject({ kind: 'approval', preview: { items: [{}, {}, {}] } });

        server.enqueue({ text: 'Added a and c.' });
        const approved = await socket.resume({ threadId, approved: true, approvedItems: ['i1', 'i3'] }).done;
        expect(approved).toMatchObject({ type: 'complete', event: { fullText: 'Added a and c.' } });
        expect([await node('client-a'), await node('client-b'), await node('client-c')].map(Boolean)).toEqual([
          true,
          false,
          true,
        ]);
        const [first] = await rest.listChanges(threadId);
        expect(first).toMatchObject({ operationId: `${threadId}:call_cb`, toolCallId: 'call_cb' });
        expect(first.changes.nodesToCreate.map((created) => created._key)).toEqual(['client-a', 'client-c']);

        server.enqueue({ toolCalls: [createNode('call_cd', 'client-d')] });
        await socket.chat({ graphKey: GRAPH, message: 'Add d', threadId }).done;
        server.enqueue({ text: 'Added d.' });
        const resumed = await rest.resume({ threadId, approved: true });
        expect(resumed.resolution).toMatchObject({ status: 'approved', operationId: `${threadId}:call_cd` });

        const restored = await rest.restore(threadId, first.messageId!);
        expect(restored).toMatchObject({ reverted: [`${threadId}:call_cd`], refused: [] });
        expect(await node('client-d')).toBeUndefined();

        const undone = await socket.undo({ threadId, messageId: first.messageId! }).done;
        expect(undone).toMatchObject({ type: 'reverted', event: { reverted: [`${threadId}:call_cb`], refused: [] } });
        expect([await node('client-a'), await node('client-c')]).toEqual([undefined, undefined]);
        const log = await rest.listChanges(threadId);
        expect(log.map((change) => [change.actor.via, Boolean(change.revertedBy)])).toEqual([
          ['approval', true],
          ['approval', true],
          ['undo', false],
          ['undo', false],
        ]);

        const nothingLeft = await rest.undo(threadId).catch((error: unknown) => error);
        expect(nothingLeft).toBeInstanceOf(AiApiError);
        expect(nothingLeft).toMatchObject({ statusCode: 409, code: 'conflict' });
      } finally {
        socket.close();
      }
    });
  });
});

describe('Changes with HITL_APPLY=client (end to end)', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const clients: AiSocketClient[] = [];

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      HITL_APPLY: 'client',
    });
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.close();
    await app.close();
    await server.close();
  });

  it('sends approved and reverted changes to the editor with their own operation ids, and records both', async () => {
    const client = await AiSocketClient.connect(app.url, { token: editor });
    clients.push(client);
    server.enqueue({ toolCalls: [createNode('call_client', 'log-client')] }, { text: 'Your editor adds it.' });
    const proposed = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Add a log node' });
    const threadId = proposed.complete!.threadId;
    const resumed = await client.resume({ _id: 2, threadId, approved: true });
    expect(resumed.complete).toBeDefined();
    const log = (await request(app.url).get(`/api/ai/thread/${threadId}/changes`).set(as(editor)).expect(200)).body;
    expect(log).toEqual([expect.objectContaining({ operationId: `${threadId}:call_client`, appliedBy: 'client' })]);
    const exported = (await request(app.url).get(`/api/graphs/${GRAPH}`).set(as(editor)).expect(200)).body;
    expect(exported.nodes.map((item: { _key: string }) => item._key)).not.toContain('log-client');
    // The editor applies it and its sync server saves it back.
    const created = (
      resumed.events.find((event) => event.event === 'ai:complete') ? log[0].changes.nodesToCreate[0] : null
    ) as object;
    await request(app.url)
      .post(`/api/graphs/${GRAPH}/changes`)
      .set(as(admin))
      .send({ upsertNodes: [created], saved: true })
      .expect(202);

    const undone = await client.undo({ _id: 3, threadId });
    expect(undone.names).toEqual(['ai:thread', 'ai:event', 'ai:apply', 'ai:reverted']);
    const apply = undone.events[2].payload as {
      operationId: string;
      reverts: string[];
      preview: { nodeKeysToDelete: string[] };
    };
    expect(apply).toMatchObject({
      operationId: expect.stringMatching(new RegExp(`^${threadId}:undo:`)),
      reverts: [`${threadId}:call_client`],
    });
    expect(apply.preview.nodeKeysToDelete).toEqual(['log-client']);
  });
});

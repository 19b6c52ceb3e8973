import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { AiApprovalPendingEvent } from '../../src/ai/socket/ai-socket.events';
import { AutomationsController } from '../../src/automations/http/automations.controller';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'automations-e2e-secret-of-at-least-32-chars';
const GRAPH = 'nba-workflow';

const sign = (sub: string, workspace: string, role: string) =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 });
const alice = sign('alice', 'default', 'editor');
const bob = sign('bob', 'default', 'editor');
const vera = sign('vera', 'default', 'viewer');
const admin = sign('root', 'default', 'admin');
const acme = sign('ann', 'acme', 'admin');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

const proposeNode = (nodeKey: string) => ({
  id: `call_${nodeKey}`,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 900, posY: 320, reason: 'Log the fetch errors' },
});

interface RunView {
  runId: string;
  threadId: string | null;
  outcome: string;
  usage: { promptTokens: number; completionTokens: number; costUsd: number; llmCalls: number };
  error?: { code: string; message: string };
  startedTime: number;
  finishedTime?: number;
  trigger: string;
}

describe(`${AutomationsController.name} (docs/protocol.md §8.4)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const clients: AiSocketClient[] = [];

  const api = () => request(app.url);
  const create = (token: string, body: object) => api().post('/api/ai/automations').set(as(token)).send(body);
  const weekly = (overrides: object = {}) => ({
    name: 'Weekly review',
    graphKey: GRAPH,
    prompt: 'Review the error handling of {{period:-1_WEEK}} as of {{now}} (previous run: {{lastRunTime}}).',
    schedule: { cron: '0 9 * * 1', timezone: 'Europe/Paris' },
    ...overrides,
  });
  const runsOf = async (automationId: string, token = alice): Promise<RunView[]> =>
    (await api().get(`/api/ai/automations/${automationId}/runs`).set(as(token)).expect(200)).body;
  /** Polls the history until the newest run satisfies `done`. */
  const settled = async (
    automationId: string,
    done: (run: RunView) => boolean = (run) => run.outcome !== 'running',
  ): Promise<RunView> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [latest] = await runsOf(automationId);
      if (latest && done(latest)) return latest;
      if (Date.now() > deadline) throw new Error(`run not settled: ${JSON.stringify(latest)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const connect = async (token: string) => {
    const client = await AiSocketClient.connect(app.url, { token });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      // Runs here start by hand (run-now); the scheduler's own tests move a clock.
      AUTOMATIONS_ENABLED: 'false',
    });
    const demo = await api().get(`/api/graphs/${GRAPH}`).set(as(admin)).expect(200);
    const rekey = <T extends { graphKey?: string }>(items: T[]) =>
      items.map((item) => ({ ...item, graphKey: 'billing' }));
    await api()
      .put('/api/graphs/billing')
      .set(as(acme))
      .send({
        ...demo.body,
        graph: { ...demo.body.graph, _key: 'billing' },
        nodes: rekey(demo.body.nodes),
        edges: rekey(demo.body.edges),
      })
      .expect(200);
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  beforeEach(() => server.reset());
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  describe('definitions', () => {
    it('creates, reads, changes and deletes an automation; editors and admins only', async () => {
      const created = await create(alice, weekly({ maxCostUsdPerMonth: 5 })).expect(200);
      expect(created.body).toEqual({
        automationId: expect.stringMatching(/^aut_/),
        name: 'Weekly review',
        graphKey: GRAPH,
        prompt: weekly().prompt,
        schedule: { cron: '0 9 * * 1', timezone: 'Europe/Paris' },
        enabled: true,
        maxCostUsdPerMonth: 5,
        createdBy: 'alice',
        createdTime: expect.any(Number),
        updatedTime: expect.any(Number),
        nextRunTime: expect.any(Number),
        running: false,
      });
      // The next Monday 09:00 in Paris.
      const next = new Date(created.body.nextRunTime);
      expect(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Europe/Paris',
          weekday: 'short',
          hour: '2-digit',
          minute: '2-digit',
        }).format(next),
      ).toBe('Mon 09:00');
      expect(created.body.nextRunTime).toBeGreaterThan(Date.now());
      const id = created.body.automationId;

      expect((await api().get(`/api/ai/automations/${id}`).set(as(bob)).expect(200)).body).toEqual(created.body);
      expect(
        (await api().get('/api/ai/automations').set(as(admin)).expect(200)).body.map(
          (item: { automationId: string }) => item.automationId,
        ),
      ).toContain(id);
      await api().get('/api/ai/automations').set(as(vera)).expect(403);
      await create(vera, weekly()).expect(403);
      await api().get(`/api/ai/automations/${id}`).set(as(acme)).expect(404);

      const paused = await api()
        .patch(`/api/ai/automations/${id}`)
        .set(as(bob))
        .send({ enabled: false, maxCostUsdPerMonth: null, maxCostUsdPerRun: 0.25 })
        .expect(200);
      expect(paused.body).toMatchObject({
        enabled: false,
        nextRunTime: null,
        maxCostUsdPerRun: 0.25,
        createdBy: 'alice',
      });
      expect(paused.body).not.toHaveProperty('maxCostUsdPerMonth');
      const resumed = await api()
        .patch(`/api/ai/automations/${id}`)
        .set(as(alice))
        .send({ enabled: true, schedule: { cron: '30 7 * * *', timezone: 'UTC' } })
        .expect(200);
      expect(new Date(resumed.body.nextRunTime).toISOString()).toMatch(/T07:30:00\.000Z$/);

      await api().delete(`/api/ai/automations/${id}`).set(as(alice)).expect(204);
      await api().get(`/api/ai/automations/${id}`).set(as(alice)).expect(404);
      await api().delete(`/api/ai/automations/${id}`).set(as(alice)).expect(404);
    });

    it.each([
      [
        'a bad cron expression',
        { schedule: { cron: '61 * * * *', timezone: 'UTC' } },
        400,
        /schedule.cron: "61 \* \* \* \*" is not a valid cron expression/,
      ],
      [
        'an unknown time zone',
        { schedule: { cron: '0 9 * * 1', timezone: 'Mars/Phobos' } },
        400,
        /schedule.timezone: "Mars\/Phobos" is not an IANA time zone/,
      ],
      [
        'a schedule firing every second',
        { schedule: { cron: '* * * * * *', timezone: 'UTC' } },
        400,
        /more often than once a minute/,
      ],
      ['a schedule without a time zone', { schedule: { cron: '0 9 * * 1' } }, 400, /timezone/],
      [
        'an unknown schedule field',
        { schedule: { cron: '0 9 * * 1', timezone: 'UTC', every: 'day' } },
        400,
        /schedule.every: property every should not exist/,
      ],
      ['an unknown placeholder', { prompt: 'Summarize {{today}}' }, 400, /unknown placeholder \{\{today\}\}/],
      [
        'a prompt over MESSAGE_MAX_CHARS',
        { prompt: 'x'.repeat(16_001) },
        413,
        /prompt is longer than 16000 characters/,
      ],
      ['a graph of another workspace', { graphKey: 'billing' }, 404, /Graph "billing" not found/],
      [
        'an unknown provider configuration',
        { providerConfigId: 'pc_missing' },
        404,
        /Provider configuration "pc_missing" not found/,
      ],
      ['a negative budget', { maxCostUsdPerRun: -1 }, 400, /maxCostUsdPerRun/],
      ['an unknown field', { color: 'blue' }, 400, /property color should not exist/],
    ])('refuses %s with a clear error', async (_name, overrides, status, message) => {
      const response = await create(alice, weekly(overrides)).expect(status);
      expect(response.body.message).toMatch(message);
    });
  });

  it('documents every automation, approval and provider-configuration route in Swagger', async () => {
    const { paths } = (await api().get('/docs-json').expect(200)).body;
    const routes: Array<[string, string]> = [
      ['/api/ai/automations', 'post'],
      ['/api/ai/automations', 'get'],
      ['/api/ai/automations/{automationId}', 'get'],
      ['/api/ai/automations/{automationId}', 'patch'],
      ['/api/ai/automations/{automationId}', 'delete'],
      ['/api/ai/automations/{automationId}/run', 'post'],
      ['/api/ai/automations/{automationId}/runs', 'get'],
      ['/api/ai/approvals', 'get'],
      ['/api/ai/provider-configs', 'get'],
      ['/api/ai/provider-configs', 'post'],
      ['/api/ai/provider-configs/active', 'get'],
      ['/api/ai/provider-configs/active', 'delete'],
      ['/api/ai/provider-configs/{configId}', 'get'],
      ['/api/ai/provider-configs/{configId}', 'patch'],
      ['/api/ai/provider-configs/{configId}', 'delete'],
      ['/api/ai/provider-configs/{configId}/activate', 'post'],
    ];
    for (const [route, method] of routes) {
      const operation = paths[route]?.[method];
      expect({ route, method, documented: Boolean(operation?.summary) }).toEqual({ route, method, documented: true });
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation.responses).toHaveProperty('401');
      const success = operation.responses['200'] ?? operation.responses['204'];
      expect({ route, method, success: Boolean(success) }).toEqual({ route, method, success: true });
    }
    expect(paths['/api/ai/automations'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateAutomationDto',
    });
    expect(paths['/api/ai/automations/{automationId}/runs'].get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'limit', in: 'query' })]),
    );
    expect(
      paths['/api/ai/automations/{automationId}/runs'].get.responses['200'].content['application/json'].schema
        .example[2],
    ).toMatchObject({ outcome: 'skipped_budget' });
  });

  describe('runs', () => {
    it('runs through the same agent without a socket: a thread of type automation with the resolved prompt, and a history with usage', async () => {
      const automation = (await create(alice, weekly()).expect(200)).body;
      server.enqueue({
        text: 'Two nodes handle errors; fetch-api has no log.',
        usage: { prompt: 1200, completion: 40 },
      });
      const started = await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(bob)).expect(200);
      expect(started.body).toEqual({ runId: expect.stringMatching(/^run_/), threadId: expect.stringMatching(/^ai_/) });
      const run = await settled(automation.automationId);
      expect(run).toEqual({
        runId: started.body.runId,
        threadId: started.body.threadId,
        trigger: 'manual',
        startedTime: expect.any(Number),
        finishedTime: expect.any(Number),
        outcome: 'completed',
        usage: {
          promptTokens: 1200,
          completionTokens: 40,
          cachedTokens: 0,
          totalTokens: 1240,
          costUsd: expect.any(Number),
          llmCalls: 1,
        },
        // docs/protocol.md §9.5: each run records who it acted as.
        acting: { userId: 'alice', role: 'editor', onBehalfOf: 'alice' },
      });
      expect(run.usage.costUsd).toBeCloseTo((1200 * 2.5 + 40 * 10) / 1_000_000, 12);
      expect(run.finishedTime!).toBeGreaterThanOrEqual(run.startedTime);

      // The thread: type automation, owned by the creator, the prompt as asked (placeholders resolved in Paris).
      const thread = (await api().get(`/api/ai/thread/${run.threadId}`).set(as(alice)).expect(200)).body;
      expect(thread).toMatchObject({
        type: 'automation',
        automationId: automation.automationId,
        graphKey: GRAPH,
        title: expect.stringMatching(/^Weekly review · \d{4}-\d\d-\d\d \d\d:\d\d$/),
      });
      const asked = thread.messages[0];
      expect(asked.role).toBe('user');
      expect(asked.content).toMatch(
        /^Review the error handling of \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0[12]:00 \(previous run: never \(this is the first run\)\)\.$/,
      );
      expect(thread.messages.at(-1)).toMatchObject({
        role: 'assistant',
        content: 'Two nodes handle errors; fetch-api has no log.',
      });
      expect(
        server.requests[0].body.messages.find((message: { role: string }) => message.role === 'user').content,
      ).toBe(asked.content);
      // Every editor may read it; a viewer may not; it is listed among the creator's threads with its type.
      await api().get(`/api/ai/thread/${run.threadId}`).set(as(bob)).expect(200);
      await api().get(`/api/ai/thread/${run.threadId}`).set(as(vera)).expect(404);
      const threads = (await api().post('/api/ai/threads').set(as(alice)).send({ graphKey: GRAPH }).expect(200)).body;
      expect(threads.find((item: { threadId: string }) => item.threadId === run.threadId)).toMatchObject({
        type: 'automation',
        automationId: automation.automationId,
      });

      // The automation shows it as its last run; the next run's {{lastRunTime}} is this run's start.
      expect(
        (await api().get(`/api/ai/automations/${automation.automationId}`).set(as(alice)).expect(200)).body.lastRun,
      ).toEqual(run);
      server.enqueue({ text: 'Nothing new.' });
      await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      const second = await settled(
        automation.automationId,
        (latest) => latest.runId !== run.runId && latest.outcome !== 'running',
      );
      const secondThread = (await api().get(`/api/ai/thread/${second.threadId}`).set(as(alice)).expect(200)).body;
      expect(secondThread.messages[0].content).not.toContain('never');
      expect(secondThread.messages[0].content).toMatch(/previous run: \d{4}-\d\d-\d\dT/);
    });

    it('waits in the approval queue and tells connected editors; approving applies the edit and completes the run', async () => {
      const automation = (await create(alice, weekly({ name: 'Log errors' })).expect(200)).body;
      const editor = await connect(bob);
      const viewer = await connect(vera);
      server.enqueue({
        text: 'fetch-api needs a log node.',
        toolCalls: [proposeNode('log-automation')],
        usage: { prompt: 900, completion: 30 },
      });
      const started = await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      const interrupted = await settled(automation.automationId);
      expect(interrupted).toMatchObject({
        outcome: 'interrupted',
        threadId: started.body.threadId,
        usage: { llmCalls: 1 },
      });
      expect(interrupted).not.toHaveProperty('finishedTime');

      await editor.waitUntil(
        () => editor.received.some((event) => event.event === 'ai:approval_pending'),
        5000,
        'ai:approval_pending',
      );
      const pending = editor.received.find((event) => event.event === 'ai:approval_pending')!
        .payload as AiApprovalPendingEvent;
      expect(pending).toEqual({
        threadId: started.body.threadId,
        automationId: automation.automationId,
        interrupt: expect.objectContaining({
          kind: 'approval',
          toolCallId: 'call_log-automation',
          proposedAction: expect.objectContaining({ type: 'create_node' }),
        }),
      });
      expect(viewer.received.some((event) => event.event === 'ai:approval_pending')).toBe(false);

      const queue = (await api().get('/api/ai/approvals').set(as(bob)).expect(200)).body;
      expect(queue[0]).toEqual({
        threadId: started.body.threadId,
        type: 'automation',
        automationId: automation.automationId,
        graphKey: GRAPH,
        interrupt: pending.interrupt,
        createdTime: expect.any(Number),
      });
      expect((await api().get('/api/ai/approvals').set(as(vera)).expect(200)).body).toEqual([]);

      // Bob (not the creator) approves with the existing resume: the node is applied, the run completes.
      server.enqueue({ text: 'Added log-automation.', usage: { prompt: 1000, completion: 10 } });
      const resumed = await api()
        .post('/api/ai/resume')
        .set(as(bob))
        .send({ threadId: started.body.threadId, approved: true })
        .expect(200);
      expect(resumed.body).toMatchObject({
        type: 'message',
        message: 'Added log-automation.',
        resolution: { status: 'approved' },
      });
      const graph = (await api().get(`/api/graphs/${GRAPH}`).set(as(alice)).expect(200)).body;
      expect(graph.nodes.map((node: { _key: string }) => node._key)).toContain('log-automation');
      const completed = (await runsOf(automation.automationId))[0];
      expect(completed).toMatchObject({
        runId: started.body.runId,
        outcome: 'completed',
        finishedTime: expect.any(Number),
        usage: { promptTokens: 1900, llmCalls: 2 },
      });
      expect(
        (await api().get('/api/ai/approvals').set(as(bob)).expect(200)).body.map(
          (item: { threadId: string }) => item.threadId,
        ),
      ).not.toContain(started.body.threadId);
    });

    it('stops telling a socket about proposals once its handshake token expired (it leaves the approvals room)', async () => {
      const automation = (await create(alice, weekly({ name: 'Log errors again' })).expect(200)).body;
      const shortLived = await connect(
        jwt.sign({ sub: 'bob', workspace: 'default', role: 'editor' }, SECRET, { expiresIn: 2 }),
      );
      const fresh = await connect(bob);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      server.enqueue({ text: 'fetch-api needs a log node.', toolCalls: [proposeNode('log-after-expiry')] });
      await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      await fresh.waitUntil(
        () => fresh.received.some((event) => event.event === 'ai:approval_pending'),
        5000,
        'ai:approval_pending',
      );
      expect(shortLived.socket.connected).toBe(true);
      expect(shortLived.received.some((event) => event.event === 'ai:approval_pending')).toBe(false);
    });

    it('skips a run whose monthly budget is spent, with no upstream request', async () => {
      const automation = (await create(alice, weekly({ name: 'Budgeted', maxCostUsdPerMonth: 0.001 })).expect(200))
        .body;
      server.enqueue({ text: 'An expensive answer.', usage: { prompt: 1000, completion: 100 } }); // $0.0035
      await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      expect((await settled(automation.automationId)).outcome).toBe('completed');
      expect(server.requests).toHaveLength(1);

      const skipped = await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      expect(skipped.body).toEqual({ runId: expect.any(String), threadId: null });
      const run = await settled(
        automation.automationId,
        (latest) => latest.runId === skipped.body.runId && latest.outcome !== 'running',
      );
      expect(run).toMatchObject({
        outcome: 'skipped_budget',
        threadId: null,
        usage: { llmCalls: 0, costUsd: 0 },
        error: { code: 'budget_exceeded' },
      });
      expect(run.error!.message).toMatch(/monthly budget is spent/);
      expect(server.requests).toHaveLength(1);
    });

    it('stops a run that reaches its per-run budget before its next upstream call', async () => {
      const automation = (await create(alice, weekly({ name: 'Capped', maxCostUsdPerRun: 0.001 })).expect(200)).body;
      server.enqueue({
        toolCalls: [{ id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
        usage: { prompt: 1000, completion: 20 },
      });
      await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      const run = await settled(automation.automationId);
      expect(run).toMatchObject({ outcome: 'failed', error: { code: 'budget_exceeded' }, usage: { llmCalls: 1 } });
      expect(server.requests).toHaveLength(1);
      // The thread stays valid: the tool call has its result.
      const thread = (await api().get(`/api/ai/thread/${run.threadId}`).set(as(alice)).expect(200)).body;
      expect(thread.messages.map((message: { role: string }) => message.role)).toEqual([
        'user',
        'event',
        'assistant',
        'tool',
      ]);
      expect(thread.messages[1].event.type).toBe('DATA_ADDED');
    });

    it('refuses a prompt too long for the model by itself, with no one asked: one smaller-context retry, then failed (context_length)', async () => {
      const automation = (await create(alice, weekly({ name: 'Too long' })).expect(200)).body;
      const tooLong = {
        error: {
          status: 400,
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
          message: "This model's maximum context length is 100 tokens.",
        },
      };
      server.enqueue(tooLong, tooLong);
      await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      const run = await settled(automation.automationId);
      expect(run).toMatchObject({ outcome: 'failed', error: { code: 'context_length' } });
      expect(server.requests).toHaveLength(2);
      expect(
        (await api().get('/api/ai/approvals').set(as(alice)).expect(200)).body.map(
          (item: { threadId: string }) => item.threadId,
        ),
      ).not.toContain(run.threadId);
      // The thread keeps the resolved prompt and no half answer.
      const thread = (await api().get(`/api/ai/thread/${run.threadId}`).set(as(alice)).expect(200)).body;
      expect(thread.messages[0]).toMatchObject({
        role: 'user',
        content: expect.stringMatching(/^Review the error handling of \d{4}-/),
      });
      expect(thread.messages.some((message: { role: string }) => message.role === 'assistant')).toBe(false);
    });

    it('runs one run of an automation at a time (409) and records a failure with its code', async () => {
      const automation = (await create(alice, weekly({ name: 'Slow' })).expect(200)).body;
      server.enqueue({ text: 'Slowly…', delayMs: 150 });
      await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      const busy = await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(409);
      expect(busy.body).toMatchObject({ code: 'conflict', retryable: true });
      expect((await api().get(`/api/ai/automations/${automation.automationId}`).set(as(alice))).body.running).toBe(
        true,
      );
      await settled(automation.automationId);

      server.enqueue({
        error: {
          status: 401,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
          message: 'Incorrect API key provided',
        },
      });
      await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
      const failed = await settled(automation.automationId, (latest) => latest.outcome === 'failed');
      expect(failed.error).toEqual({ code: 'auth_error', message: expect.any(String) });
      await api().post(`/api/ai/automations/unknown/run`).set(as(alice)).expect(404);
    });
  });
});

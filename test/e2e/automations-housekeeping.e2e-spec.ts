import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { AutomationRepository } from '../../src/automations/automation.repository';
import { AUTOMATION_REPOSITORY } from '../../src/automations/automation-repository.token';
import { AutomationScheduler } from '../../src/automations/automation.scheduler';
import { ManualClock } from '../support/manual-clock';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'automations-housekeeping-secret-of-32-chars';
const GRAPH = 'nba-workflow';
const DAY = 86_400_000;

const sign = (sub: string, workspace: string, role: string) =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 3600 });
const alice = sign('alice', 'default', 'editor');
const admin = sign('root', 'default', 'admin');
const acme = sign('ann', 'acme', 'admin');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

interface RunView {
  runId: string;
  threadId: string | null;
  outcome: string;
  error?: { code: string; message: string };
}

const proposeNode = (nodeKey: string) => ({
  id: `call_${nodeKey}`,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 900, posY: 320, reason: 'Log the fetch errors' },
});

/**
 * What automations leave behind and how many run at once, on the real service with a clock the test moves: the run limits queue slots rather
 * than drop them and never let one workspace starve another; a newer proposal supersedes an older
 * one, an unanswered one expires; old runs go with their threads; an unusable schedule disables its
 * automation with the reason; a cost budget needs a priced model.
 */
describe('Automation limits and housekeeping', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const clock = new ManualClock(Date.now());

  const api = () => request(app.url);
  const scheduler = () => app.app.get(AutomationScheduler);
  const store = () => app.app.get<AutomationRepository>(AUTOMATION_REPOSITORY);
  const create = async (token: string, overrides: object = {}): Promise<{ automationId: string }> =>
    (
      await api()
        .post('/api/ai/automations')
        .set(as(token))
        .send({
          name: 'Daily review',
          graphKey: GRAPH,
          prompt: 'Review the error handling as of {{now}}.',
          schedule: { cron: '0 9 * * *', timezone: 'UTC' },
          ...overrides,
        })
        .expect(200)
    ).body;
  const runsOf = async (automationId: string, token = alice): Promise<RunView[]> =>
    (await api().get(`/api/ai/automations/${automationId}/runs`).set(as(token)).expect(200)).body;
  const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** Makes the automation due now, as if its slot had come. */
  const due = async (workspace: string, automationId: string) =>
    store().update(workspace, automationId, { nextRunTime: clock.now() - 1_000 }, clock.now());

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp(
      {
        ...server.providerEnv('openai'),
        EMBEDDING_PROVIDER: 'local',
        AUTH_MODE: 'jwt',
        JWT_SECRET: SECRET,
        // Every look at the store is the test's own tick().
        AUTOMATION_POLL_MS: '60000',
        AUTOMATION_MAX_RUNS: '3',
        AUTOMATION_MAX_RUNS_PER_WORKSPACE: '2',
        AUTOMATION_INTERRUPT_TTL_DAYS: '7',
        AUTOMATION_RETENTION_DAYS: '30',
      },
      { clock },
    );
    const demo = await api().get(`/api/graphs/${GRAPH}`).set(as(admin)).expect(200);
    await api().put(`/api/graphs/${GRAPH}`).set(as(acme)).send(demo.body).expect(200);
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  afterEach(async () => {
    // Each test's automations go with it: their slots would come due in the next one's ticks.
    for (const token of [admin, acme]) {
      for (const { automationId } of (await api().get('/api/ai/automations').set(as(token)).expect(200)).body)
        await api().delete(`/api/ai/automations/${automationId}`).set(as(token)).expect(204);
    }
  });
  beforeEach(() => {
    server.reset();
    // Runs of one test start after those of the one before (their history is ordered by start).
    clock.advance(60_000);
  });

  it('runs at most 2 per workspace and 3 in all at once, queues the rest by slot, and lets no workspace starve another', async () => {
    const crowd = [];
    for (let index = 0; index < 5; index += 1) crowd.push(await create(alice, { name: `Crowd ${index}` }));
    const other = await create(acme, { name: 'Other workspace' });
    for (const [index, automation] of crowd.entries())
      await store().update(
        'default',
        automation.automationId,
        { nextRunTime: clock.now() - 10_000 + index },
        clock.now(),
      );
    await due('acme', other.automationId);
    // Each run streams for about half a second.
    const slow = () => ({ text: 'Looked at it.', chunkSize: 1, delayMs: 40 });
    for (let index = 0; index < 6; index += 1) server.enqueue(slow());

    const first = await scheduler().tick();
    expect(first).toHaveLength(3);
    const running = async () =>
      (await api().get('/api/ai/automations').set(as(alice)).expect(200)).body.filter(
        (item: { running: boolean }) => item.running,
      ).length;
    expect(await running()).toBe(2);
    expect((await api().get(`/api/ai/automations/${other.automationId}`).set(as(acme))).body.running).toBe(true);
    // Full: another look starts nothing, and drops nothing (the slots stay due); a run-now is told to retry.
    expect(await scheduler().tick()).toEqual([]);
    const refused = await api().post(`/api/ai/automations/${crowd[4].automationId}/run`).set(as(alice)).expect(429);
    expect(refused.body).toMatchObject({ code: 'rate_limit', retryable: true });
    // The service's 3 places are taken (2 here, 1 in acme): the first limit reached is named.
    expect(refused.body.message).toMatch(
      /3 automation run\(s\) are in progress, as many as AUTOMATION_MAX_RUNS allows/,
    );

    const ran = new Set<string>();
    for (let round = 0; round < 10 && ran.size < 5; round += 1) {
      await until(running, (count) => count === 0, 'runs of default never ended');
      for (const automation of crowd)
        if ((await runsOf(automation.automationId)).length > 0) ran.add(automation.automationId);
      await scheduler().tick();
    }
    // Every slot ran once, the earliest first (two at a time).
    for (const automation of crowd) {
      const runs = await until(
        () => runsOf(automation.automationId),
        (list) => list.length === 1 && list[0].outcome === 'completed',
        `the slot of ${automation.automationId} did not run once`,
      );
      expect(runs).toHaveLength(1);
    }
    expect(server.requests.length).toBe(6);
  });

  it('keeps one proposal per automation in the approval queue: a newer one supersedes the older, which stays valid and is recorded so', async () => {
    const automation = await create(alice, { name: 'Proposer' });
    server.enqueue({ text: 'A log node would help.', toolCalls: [proposeNode('log-one')] });
    const first = (await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200))
      .body;
    await until(
      () => runsOf(automation.automationId),
      ([latest]) => latest?.outcome === 'interrupted',
      'first run not interrupted',
    );
    clock.advance(1_000);
    server.enqueue({ text: 'Still no log node.', toolCalls: [proposeNode('log-two')] });
    const second = (await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200))
      .body;
    const runs = await until(
      () => runsOf(automation.automationId),
      (list) => list.length === 2 && list[0].outcome === 'interrupted' && list[1].outcome === 'failed',
      'the first run was not superseded',
    );
    expect(runs[1]).toMatchObject({ runId: first.runId, error: { code: 'superseded' } });
    const queue = (await api().get('/api/ai/approvals').set(as(alice)).expect(200)).body.map(
      (item: { threadId: string }) => item.threadId,
    );
    expect(queue).toContain(second.threadId);
    expect(queue).not.toContain(first.threadId);
    // The superseded thread: its proposal answered as not applied, then a line that says why; resumable.
    const thread = (await api().get(`/api/ai/thread/${first.threadId}`).set(as(alice)).expect(200)).body;
    expect(thread.pendingInterrupt ?? null).toBeNull();
    const roles = thread.messages.map((message: { role: string }) => message.role);
    expect(roles.slice(-3)).toEqual(['assistant', 'tool', 'assistant']);
    expect(thread.messages.at(-1).content).toMatch(/newer run .* not applied/);
    const graph = (await api().get(`/api/graphs/${GRAPH}`).set(as(alice)).expect(200)).body;
    expect(graph.nodes.map((node: { _key: string }) => node._key)).not.toContain('log-one');
    await api().post('/api/ai/resume').set(as(alice)).send({ threadId: first.threadId, approved: true }).expect(409);
  });

  it('expires a proposal nobody answered, then deletes old runs with their threads', async () => {
    // Disabled: no slot of its own comes while the clock moves days ahead.
    const automation = await create(alice, { name: 'Forgotten', enabled: false });
    server.enqueue({ text: 'A log node would help.', toolCalls: [proposeNode('log-forgotten')] });
    const started = (await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200))
      .body;
    await until(
      () => runsOf(automation.automationId),
      ([latest]) => latest?.outcome === 'interrupted',
      'run not interrupted',
    );
    clock.advance(6 * DAY);
    await scheduler().tick();
    expect((await runsOf(automation.automationId))[0].outcome).toBe('interrupted');

    clock.advance(2 * DAY);
    await scheduler().tick();
    const [expired] = await until(
      () => runsOf(automation.automationId),
      ([latest]) => latest?.outcome === 'failed',
      'the interrupt did not expire',
    );
    expect(expired.error).toMatchObject({ code: 'expired' });
    const queue = (await api().get('/api/ai/approvals').set(as(alice)).expect(200)).body;
    expect(queue.map((item: { threadId: string }) => item.threadId)).not.toContain(started.threadId);
    await api().get(`/api/ai/thread/${started.threadId}`).set(as(alice)).expect(200);

    clock.advance(31 * DAY);
    await scheduler().tick();
    await until(
      () => runsOf(automation.automationId),
      (list) => list.length === 0,
      'the old run was not deleted',
    );
    await api().get(`/api/ai/thread/${started.threadId}`).set(as(alice)).expect(404);
  });

  it('disables an automation whose stored schedule became unusable, and says why in its state', async () => {
    const automation = await create(alice, { name: 'Zoned' });
    await store().update(
      'default',
      automation.automationId,
      { schedule: { cron: '0 9 * * *', timezone: 'Mars/Olympus_Mons' }, nextRunTime: clock.now() - 1_000 },
      clock.now(),
    );
    server.enqueue({ text: 'Ran once more.' });
    await scheduler().tick();
    const view = (await api().get(`/api/ai/automations/${automation.automationId}`).set(as(alice)).expect(200)).body;
    expect(view).toMatchObject({
      enabled: false,
      nextRunTime: null,
      disabledReason: expect.stringMatching(/The schedule cannot be read any more: .*Mars\/Olympus_Mons/),
    });
    // A change of the schedule clears it.
    const fixed = await api()
      .patch(`/api/ai/automations/${automation.automationId}`)
      .set(as(alice))
      .send({ enabled: true, schedule: { cron: '0 9 * * *', timezone: 'UTC' } })
      .expect(200);
    expect(fixed.body).not.toHaveProperty('disabledReason');
    expect(fixed.body.enabled).toBe(true);
  });

  it('refuses a schedule that fires twice within a minute somewhere in its cycle', async () => {
    const refused = await api()
      .post('/api/ai/automations')
      .set(as(alice))
      .send({
        name: 'Twice at midnight',
        graphKey: GRAPH,
        prompt: 'p',
        schedule: { cron: '0,30 0 0 * * *', timezone: 'UTC' },
      })
      .expect(400);
    expect(refused.body.message).toMatch(/more often than once a minute \(two slots 30 s apart\)/);
  });

  it('holds a cost budget to a priced model only: refused when stored, skipped when the active model changed', async () => {
    const unpriced = (
      await api()
        .post('/api/ai/provider-configs')
        .set(as(admin))
        .send({ name: 'Fine-tune', provider: 'openai-compatible', model: 'my-finetune', baseUrl: server.openAiBaseUrl })
        .expect(200)
    ).body;
    const refused = await api()
      .post('/api/ai/automations')
      .set(as(alice))
      .send({
        name: 'Budgeted',
        graphKey: GRAPH,
        prompt: 'p',
        schedule: { cron: '0 9 * * *', timezone: 'UTC' },
        maxCostUsdPerMonth: 5,
        providerConfigId: unpriced.configId,
      })
      .expect(400);
    expect(refused.body.message).toMatch(/"my-finetune" of provider "openai-compatible" has no known price/);
    // On the service's priced model (openai's default, gpt-4o) the budget is stored...
    const budgeted = await create(alice, { name: 'Budgeted', maxCostUsdPerMonth: 5 });
    // ...then the workspace switches to the unpriced configuration: the run is skipped, no upstream call.
    await api().post(`/api/ai/provider-configs/${unpriced.configId}/activate`).set(as(admin)).expect(200);
    await api().post(`/api/ai/automations/${budgeted.automationId}/run`).set(as(alice)).expect(200);
    const [skipped] = await until(
      () => runsOf(budgeted.automationId),
      ([latest]) => latest !== undefined && latest.outcome !== 'running',
      'run not settled',
    );
    expect(skipped).toMatchObject({ outcome: 'skipped_budget', error: { code: 'budget_unpriced' } });
    expect(server.requests).toHaveLength(0);
    await api().delete('/api/ai/provider-configs/active').set(as(admin)).expect(204);
  });
});

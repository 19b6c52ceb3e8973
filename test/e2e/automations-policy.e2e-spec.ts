import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { AiApprovalPendingEvent } from '../../src/ai/socket/ai-socket.events';
import { AutomationRunRecorder } from '../../src/automations/automation-run.recorder';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'automations-policy-e2e-secret-of-32-chars';
const GRAPH = 'nba-workflow';

const sign = (sub: string, role: string) => jwt.sign({ sub, workspace: 'default', role }, SECRET, { expiresIn: 600 });
const alice = sign('alice', 'editor');
const bob = sign('bob', 'editor');
const admin = sign('root', 'admin');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

const proposeNode = (nodeKey: string) => ({
  id: `call_${nodeKey}`,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 900, posY: 320, reason: 'Log the fetch errors' },
});
const askWhichSheet = {
  id: 'call_ask',
  name: 'ask_user',
  arguments: { kind: 'choice', question: 'Which sheet?', options: ['main', 'data-processing'] },
};

interface RunView {
  runId: string;
  threadId: string | null;
  outcome: string;
  usage: { llmCalls: number };
}

/** Automation runs under the action policy (docs/protocol.md §8.1-8.4): the creator's levels, questions, events. */
describe(`Automation runs under the action policy (${AutomationRunRecorder.name})`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const clients: AiSocketClient[] = [];

  const api = () => request(app.url);
  const settled = async (automationId: string): Promise<RunView> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [latest] = (await api().get(`/api/ai/automations/${automationId}/runs`).set(as(alice)).expect(200))
        .body as RunView[];
      if (latest && latest.outcome !== 'running') return latest;
      if (Date.now() > deadline) throw new Error(`run not settled: ${JSON.stringify(latest)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const runNow = async (name: string): Promise<{ automationId: string; run: RunView }> => {
    const automation = (
      await api()
        .post('/api/ai/automations')
        .set(as(alice))
        .send({
          name,
          graphKey: GRAPH,
          prompt: 'Make fetch-api errors visible.',
          schedule: { cron: '0 9 * * 1', timezone: 'UTC' },
        })
        .expect(200)
    ).body;
    await api().post(`/api/ai/automations/${automation.automationId}/run`).set(as(alice)).expect(200);
    return { automationId: automation.automationId, run: await settled(automation.automationId) };
  };

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      AUTOMATIONS_ENABLED: 'false',
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });
  beforeEach(() => server.reset());
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await api().put('/api/ai/policy').set(as(admin)).send({ default: {}, roles: {} }).expect(200);
  });

  it("applies what the creator's role may do alone, records ACTIONS_EXECUTED and completes without anyone", async () => {
    await api()
      .put('/api/ai/policy')
      .set(as(admin))
      .send({ default: {}, roles: { editor: { create_node: 'autonomous' } } })
      .expect(200);
    const editor = await AiSocketClient.connect(app.url, { token: bob });
    clients.push(editor);
    server.enqueue({ toolCalls: [proposeNode('log-autonomous')] }, { text: 'Added a log node.' });
    const { run } = await runNow('Autonomous');
    expect(run).toMatchObject({ outcome: 'completed', usage: { llmCalls: 2 } });
    const graph = (await api().get(`/api/graphs/${GRAPH}`).set(as(alice)).expect(200)).body;
    expect(graph.nodes.map((node: { _key: string }) => node._key)).toContain('log-autonomous');
    const thread = (await api().get(`/api/ai/thread/${run.threadId}`).set(as(alice)).expect(200)).body;
    const events = thread.messages
      .filter((message: { role: string }) => message.role === 'event')
      .map((message: { event: { type: string } }) => message.event.type);
    expect(events).toEqual(['DATA_ADDED', 'ACTIONS_EXECUTED']);
    expect(
      (await api().get('/api/ai/approvals').set(as(bob)).expect(200)).body.map(
        (item: { threadId: string }) => item.threadId,
      ),
    ).not.toContain(run.threadId);
    expect(editor.received.some((event) => event.event === 'ai:approval_pending')).toBe(false);
  });

  it('stops on a question of the model, which any editor answers; the run then completes', async () => {
    const editor = await AiSocketClient.connect(app.url, { token: bob });
    clients.push(editor);
    server.enqueue({ text: 'I need to know where.', toolCalls: [askWhichSheet] });
    const { automationId, run } = await runNow('Question');
    expect(run.outcome).toBe('interrupted');
    await editor.waitUntil(
      () => editor.received.some((event) => event.event === 'ai:approval_pending'),
      5000,
      'ai:approval_pending',
    );
    const pending = editor.received.find((event) => event.event === 'ai:approval_pending')!
      .payload as AiApprovalPendingEvent;
    expect(pending).toEqual({
      threadId: run.threadId,
      automationId,
      interrupt: {
        kind: 'question',
        toolCallId: 'call_ask',
        questionKind: 'choice',
        question: 'Which sheet?',
        options: ['main', 'data-processing'],
      },
    });
    expect((await api().get('/api/ai/approvals').set(as(bob)).expect(200)).body[0]).toMatchObject({
      threadId: run.threadId,
      interrupt: { kind: 'question' },
    });

    server.enqueue({ text: 'On main, then.' });
    const answered = await api()
      .post('/api/ai/resume')
      .set(as(bob))
      .send({ threadId: run.threadId, approved: true, answer: 'main' })
      .expect(200);
    expect(answered.body).toMatchObject({ type: 'message', message: 'On main, then.' });
    expect(await settled(automationId)).toMatchObject({
      runId: run.runId,
      outcome: 'completed',
      usage: { llmCalls: 2 },
    });
  });

  it('a second resume, refused because the interrupt was answered already, leaves the run as the first one recorded it', async () => {
    server.enqueue({ text: 'Proposal.', toolCalls: [proposeNode('log-race')] });
    const { automationId, run } = await runNow('Race');
    expect(run.outcome).toBe('interrupted');
    server.enqueue({ text: 'Done.' });
    await api()
      .post('/api/ai/resume')
      .set(as(bob))
      .send({ threadId: run.threadId, approved: false, feedback: 'Not now' })
      .expect(200);
    await api().post('/api/ai/resume').set(as(alice)).send({ threadId: run.threadId, approved: true }).expect(409);
    expect(await settled(automationId)).toMatchObject({ outcome: 'completed' });
  });
});

describe('Automation runs with HITL_APPLY=client', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      HITL_APPLY: 'client',
      AUTOMATIONS_ENABLED: 'false',
    });
  });
  afterAll(async () => {
    await app.close();
    await server.close();
  });

  it('keeps an autonomous action for a human, since no client is there to apply it', async () => {
    await request(app.url)
      .put('/api/ai/policy')
      .send({ default: { create_node: 'autonomous' } })
      .expect(200);
    server.enqueue({ toolCalls: [proposeNode('log-client')] });
    const automation = (
      await request(app.url)
        .post('/api/ai/automations')
        .send({
          name: 'Client apply',
          graphKey: GRAPH,
          prompt: 'Add a log node.',
          schedule: { cron: '0 9 * * 1', timezone: 'UTC' },
        })
        .expect(200)
    ).body;
    const started = await request(app.url).post(`/api/ai/automations/${automation.automationId}/run`).expect(200);
    const deadline = Date.now() + 10_000;
    let runs: RunView[] = [];
    while (Date.now() < deadline) {
      runs = (await request(app.url).get(`/api/ai/automations/${automation.automationId}/runs`).expect(200)).body;
      if (runs[0]?.outcome !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(runs[0]).toMatchObject({ outcome: 'interrupted' });
    const queue = (await request(app.url).get('/api/ai/approvals').expect(200)).body;
    expect(queue[0]).toMatchObject({
      threadId: started.body.threadId,
      interrupt: { kind: 'approval', proposedAction: { type: 'create_node' } },
    });
  });
});

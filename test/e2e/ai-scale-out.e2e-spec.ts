import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AiChatClient } from '../../client/src/ai-chat.client';
import type { AiApprovalPendingEvent, AiCompleteEvent } from '../../src/ai/socket/ai-socket.events';
import type { GraphNode } from '../../src/graph/graph.types';
import { AiSocketClient } from '../support/ai-socket.client';
import { editorToken, longAnswer, seqOf, textOf } from '../support/request-events';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { TcpSwitchProxy } from '../support/tcp-switch.proxy';
import { TestNginxGateway } from '../support/test-nginx.gateway';
import { TestAppProcess } from '../support/test-app.process';
import { TestRedisServer } from '../support/test-redis.server';

const SECRET = 'scale-out-e2e-secret-of-32-chars-at-least';
const SYNC_TOKEN = 'scale-out-sync-token-0123456789';
const GRAPH = 'nba-workflow';

/** A long answer, streamed slowly in the tests below. */
const SLOW_ANSWER = longAnswer(80, 'w');
const tokenOf = (user: string) => editorToken(SECRET, user);

describe('Three instances behind a gateway on one SQLite file and one Redis (docs/protocol.md §8.7)', () => {
  let llm: ScriptedLlmServer;
  let redis: TestRedisServer;
  let dataDir: string;
  let instances: TestAppProcess[];
  const clients: Array<{ close(): void }> = [];

  const connect = async (instance: TestAppProcess, user: string) => {
    const client = await AiSocketClient.connect(instance.url, { token: tokenOf(user) });
    clients.push(client);
    return client;
  };
  const health = async (instance: TestAppProcess) =>
    (await request(instance.url).get('/health')).body as { status: string; redis?: { status: string } };
  const waitForHealth = async (status: string, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reports = await Promise.all(instances.map(health));
      if (reports.every((report) => report.status === status)) return reports;
      if (Date.now() > deadline)
        throw new Error(`instances not ${status} within ${timeoutMs} ms: ${JSON.stringify(reports)}`);
      await sleep(100);
    }
  };

  beforeAll(async () => {
    [llm, redis] = await Promise.all([ScriptedLlmServer.start(), TestRedisServer.start()]);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ai-scale-out-'));
    const env = {
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      SYNC_TOKEN,
      AI_DISCONNECT_POLICY: 'continue',
      AI_REJOIN_GRACE_MS: '20000',
      // Each test has users of its own, none of whom makes more than 5 requests but the rate-limit test's.
      RATE_LIMIT_PER_MINUTE: '5',
    };
    // The first one creates the SQLite file and seeds the demo graph; then the two others join.
    instances = [await TestAppProcess.start(env, { timeoutMs: 60_000 })];
    instances.push(
      ...(await Promise.all([
        TestAppProcess.start(env, { timeoutMs: 60_000 }),
        TestAppProcess.start(env, { timeoutMs: 60_000 }),
      ])),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await Promise.all([llm?.close(), redis?.stop()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  beforeEach(() => llm.reset());
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it('reports Redis up on every instance', async () => {
    expect(await waitForHealth('ok')).toEqual(
      instances.map(() => expect.objectContaining({ status: 'ok', redis: { status: 'up' } })),
    );
  });

  it('stops a generation running on A with an ai:interrupt sent to B: the stream ends there and A cancels the upstream request', async () => {
    const [a, b] = instances;
    llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, hangAfterChunks: 6 });
    const onA = await connect(a, 'ingrid');
    onA.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through the workflow' });
    await onA.waitUntil(() => textOf(onA.eventsOf(1)).length >= 16, 10_000, 'the first pieces on A');
    await sleep(100); // the upstream hangs now: what A got is all there is
    const sent = textOf(onA.eventsOf(1));
    const threadId = (onA.eventsOf(1)[0].payload as { threadId: string }).threadId;

    const onB = await connect(b, 'ingrid');
    onB.socket.emit('ai:rejoin', { _id: 5, threadId, lastSeq: 0 });
    await onB.waitUntil(() => textOf(onB.eventsOf(5)) === sent, 10_000, 'the replay on B');
    onB.interrupt(5);

    const [onAEnd, onBEnd] = await Promise.all([onA.terminalOf(1, 10_000), onB.terminalOf(5, 10_000)]);
    expect(onAEnd.complete).toMatchObject({ aborted: true, fullText: sent });
    expect(SLOW_ANSWER.startsWith(sent)).toBe(true);
    expect(onBEnd.complete).toEqual({ ...onAEnd.complete, _id: 5 });
    expect(await llm.waitForClientClose(0, 5_000)).toMatchObject({ closedEarly: true });
    expect(onBEnd.events.map(seqOf)).toEqual(onAEnd.events.map(seqOf));
  });

  it('replays exactly what a client missed on another instance, then the live rest: no gap, no duplicate, fullText is the concatenation', async () => {
    const [a, , c] = instances;
    llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, delayMs: 25 });
    const onA = await connect(a, 'jonas');
    onA.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through the workflow' });
    await onA.waitUntil(() => textOf(onA.eventsOf(1)).length >= 40, 10_000, 'some text on A');
    onA.close(); // AI_DISCONNECT_POLICY=continue: the generation goes on, logged for a rejoin
    const seen = onA.eventsOf(1);
    const threadId = (seen[0].payload as { threadId: string }).threadId;
    const lastSeq = seqOf(seen.at(-1)!)!;

    await sleep(300); // the generation goes on meanwhile
    const onC = await connect(c, 'jonas');
    onC.socket.emit('ai:rejoin', { _id: 1, threadId, lastSeq });
    const rest = await onC.terminalOf(1, 15_000);

    const seqs = rest.events.map(seqOf);
    expect(seqs).toEqual(seqs.map((_, index) => lastSeq + 1 + index));
    expect(rest.complete!.fullText).toBe(SLOW_ANSWER);
    expect(textOf(seen) + rest.text).toBe(rest.complete!.fullText);
    expect(rest.complete).toMatchObject({ _id: 1, threadId });
    const thread = await request(c.url)
      .get(`/api/ai/thread/${threadId}`)
      .set('Authorization', `Bearer ${tokenOf('jonas')}`)
      .expect(200);
    expect(thread.body.messages.at(-1)).toMatchObject({ role: 'assistant', content: SLOW_ANSWER });
  });

  it('replays a finished request up to its terminal event, and refuses a rejoin of someone else or of a thread without one', async () => {
    const [a, b] = instances;
    llm.enqueue({ text: 'A short answer.', chunkSize: 5 });
    const onA = await connect(a, 'karla');
    const done = await onA.chat({ _id: 1, graphKey: GRAPH, message: 'Hello' }, 10_000);
    const threadId = done.complete!.threadId;

    const onB = await connect(b, 'karla');
    onB.socket.emit('ai:rejoin', { _id: 2, threadId, lastSeq: 2 });
    const replay = await onB.terminalOf(2);
    expect(replay.events.map(seqOf)).toEqual(done.events.slice(2).map(seqOf));
    expect(replay.complete).toEqual({ ...done.complete, _id: 2 });

    const stranger = await connect(b, 'mallory');
    stranger.socket.emit('ai:rejoin', { _id: 3, threadId, lastSeq: 0 });
    expect((await stranger.terminalOf(3)).error).toEqual({
      _id: 3,
      code: 'not_found',
      error: expect.any(String),
      retryable: false,
    });
    onB.socket.emit('ai:rejoin', { _id: 4, threadId: 'ai_0000000000000000000000000', lastSeq: 0 });
    expect((await onB.terminalOf(4)).error).toMatchObject({ code: 'not_found' });
  });

  it('lets the real client package pick its answer up on another instance after the gateway dropped its connection', async () => {
    const [a, b] = instances;
    llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, delayMs: 25 });
    const gateway = await TcpSwitchProxy.start(a.url);
    const client = new AiChatClient({
      url: gateway.url,
      token: tokenOf('lena'),
      transports: ['websocket'],
      coalesceMs: 0,
    });
    clients.push(client);
    try {
      let rendered = '';
      const answer = client.chat(
        { graphKey: GRAPH, message: 'Walk me through the workflow' },
        { onText: (_delta, text) => (rendered = text) },
      );
      while (answer.text.length < 40) await sleep(20);
      gateway.switchTo(b.url);
      gateway.dropAll(); // socket.io-client reconnects (through the gateway, now to B) and sends ai:rejoin itself

      const outcome = await answer.done;
      expect(outcome.type).toBe('complete');
      const complete = (outcome as { event: AiCompleteEvent }).event;
      expect(complete.fullText).toBe(SLOW_ANSWER);
      expect(answer.text).toBe(SLOW_ANSWER);
      expect(rendered).toBe(SLOW_ANSWER);
      expect(llm.requests).toHaveLength(1);
    } finally {
      await gateway.close();
    }
  });

  it('builds the context on one instance with an unsaved change pushed to another', async () => {
    const [a, b, c] = instances;
    const ticketing: GraphNode = {
      _key: 'arena-ticketing',
      graphKey: GRAPH,
      type: 'api-call',
      sheet: '0',
      posX: 700,
      posY: 500,
      data: { description: 'Poll the arena ticketing turnstiles' },
    };
    const editor = { Authorization: `Bearer ${tokenOf('nora')}` };
    // B caches the context of this question first: the change must clear it there too.
    const before = await request(b.url)
      .post('/api/rag/context')
      .set(editor)
      .send({ graphKey: GRAPH, query: 'arena ticketing turnstiles' })
      .expect(200);
    expect(before.body.context.relevantNodes.map((node: GraphNode) => node._key)).not.toContain('arena-ticketing');

    await request(a.url)
      .post(`/api/graphs/${GRAPH}/changes`)
      .set({ Authorization: `Bearer ${SYNC_TOKEN}`, 'X-Workspace': 'default' })
      .send({ upsertNodes: [ticketing], saved: false })
      .expect(202);

    // The other instances' replicas follow by pub/sub: within milliseconds, not within A's 202.
    const firstNodeOn = async (url: string) => {
      const after = await request(url)
        .post('/api/rag/context')
        .set(editor)
        .send({ graphKey: GRAPH, query: 'arena ticketing turnstiles' })
        .expect(200);
      return after.body.context.relevantNodes[0]?._key as string | undefined;
    };
    for (const url of [b.url, c.url]) {
      let first = await firstNodeOn(url);
      for (
        const deadline = Date.now() + 5_000;
        first !== 'arena-ticketing' && Date.now() < deadline;
        first = await firstNodeOn(url)
      )
        await sleep(25);
      expect(first).toBe('arena-ticketing');
    }
    llm.enqueue({ text: 'It polls the turnstiles.' });
    await request(c.url)
      .post('/api/ai/chat')
      .set(editor)
      .send({ graphKey: GRAPH, message: 'What about the arena ticketing turnstiles?' })
      .expect(200);
    expect(JSON.stringify(llm.requests[0].body.messages)).toContain('arena-ticketing');
  });

  it("holds a principal's rate limit across instances: the budget spent on A and B is gone on C, for REST and socket alike", async () => {
    const [a, b, c] = instances;
    const as = { Authorization: `Bearer ${tokenOf('rita')}` };
    // Refused after the budget is spent (a graph that does not exist: no model call, the budget still counts).
    const ask = (instance: TestAppProcess) =>
      request(instance.url).post('/api/ai/chat').set(as).send({ graphKey: 'no-such-graph', message: 'Hi' });
    expect((await ask(a)).status).toBe(404);
    expect((await ask(b)).status).toBe(404);
    expect((await ask(c)).status).toBe(404);
    const onA = await connect(a, 'rita');
    expect((await onA.chat({ _id: 1, graphKey: 'no-such-graph', message: 'Hi' })).error).toMatchObject({
      code: 'not_found',
    });
    expect((await ask(b)).status).toBe(404);
    // 5 per minute spent, on three instances: the sixth is refused wherever it goes.
    const refused = await ask(c);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limit', retryable: true });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await onA.chat({ _id: 2, graphKey: 'no-such-graph', message: 'Hi' })).error).toMatchObject({
      code: 'rate_limit',
    });
    // Another principal still has its own budget.
    expect(
      (
        await request(c.url)
          .post('/api/ai/chat')
          .set({ Authorization: `Bearer ${tokenOf('sven')}` })
          .send({ graphKey: 'no-such-graph', message: 'Hi' })
      ).status,
    ).toBe(404);
  });

  it('answers a repeated Idempotency-Key on another instance with the first answer, without a second LLM call', async () => {
    const [a, b] = instances;
    const editor = { Authorization: `Bearer ${tokenOf('olga')}`, 'Idempotency-Key': 'scale-out-key-1' };
    llm.enqueue({ text: 'Only once.' });
    const first = await request(a.url)
      .post('/api/ai/chat')
      .set(editor)
      .send({ graphKey: GRAPH, message: 'Once' })
      .expect(200);
    const again = await request(b.url)
      .post('/api/ai/chat')
      .set(editor)
      .send({ graphKey: GRAPH, message: 'Once' })
      .expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(llm.requests).toHaveLength(1);
  });

  it('tells the editors connected to every instance that an automation run on A waits for them (ai:approval_pending through the Redis adapter), and one of them approves it on another', async () => {
    const [a, b, c] = instances;
    const automation = (
      await request(a.url)
        .post('/api/ai/automations')
        .set('Authorization', `Bearer ${tokenOf('petra')}`)
        .send({
          name: 'Log errors',
          graphKey: GRAPH,
          prompt: 'Log the fetch errors.',
          schedule: { cron: '0 9 * * 1', timezone: 'Europe/Paris' },
        })
        .expect(200)
    ).body as { automationId: string };
    const onB = await connect(b, 'quinn');
    const onC = await connect(c, 'rosa');
    const viewer = await AiSocketClient.connect(b.url, {
      token: jwt.sign({ sub: 'sven', workspace: 'default', role: 'viewer' }, SECRET, { expiresIn: 600 }),
    });
    clients.push(viewer);
    llm.enqueue({
      text: 'fetch-api needs a log node.',
      toolCalls: [
        {
          id: 'call_scale-out-log',
          name: 'propose_create_node',
          arguments: {
            nodeKey: 'scale-out-log',
            typeKey: 'log-node',
            sheet: '0',
            posX: 900,
            posY: 320,
            reason: 'Log the fetch errors',
          },
        },
      ],
    });
    const started = (
      await request(a.url)
        .post(`/api/ai/automations/${automation.automationId}/run`)
        .set('Authorization', `Bearer ${tokenOf('petra')}`)
        .expect(200)
    ).body as {
      threadId: string;
    };

    const pendingOn = async (client: AiSocketClient) => {
      await client.waitUntil(
        () => client.received.some((event) => event.event === 'ai:approval_pending'),
        10_000,
        'ai:approval_pending',
      );
      return client.received
        .filter((event) => event.event === 'ai:approval_pending')
        .map((event) => event.payload as AiApprovalPendingEvent);
    };
    const [onBPending, onCPending] = await Promise.all([pendingOn(onB), pendingOn(onC)]);
    expect(onBPending).toEqual([
      {
        threadId: started.threadId,
        automationId: automation.automationId,
        interrupt: expect.objectContaining({ kind: 'approval', toolCallId: 'call_scale-out-log' }),
      },
    ]);
    expect(onCPending).toEqual(onBPending);
    expect(viewer.received.some((event) => event.event === 'ai:approval_pending')).toBe(false);

    llm.enqueue({ text: 'Added scale-out-log.' });
    await request(c.url)
      .post('/api/ai/resume')
      .set('Authorization', `Bearer ${tokenOf('rosa')}`)
      .send({ threadId: started.threadId, approved: true })
      .expect(200);
    const runs = (
      await request(b.url)
        .get(`/api/ai/automations/${automation.automationId}/runs`)
        .set('Authorization', `Bearer ${tokenOf('quinn')}`)
        .expect(200)
    ).body;
    expect(runs[0]).toMatchObject({ threadId: started.threadId, outcome: 'completed' });
  });

  it("serves through the compose gateway (docker/nginx/graph-ai.conf in Debian's nginx): REST, Socket.IO over websocket and over long-polling, no /metrics", async () => {
    const gateway = await TestNginxGateway.start(instances.map((instance) => instance.url));
    try {
      expect((await request(gateway.url).get('/health').expect(200)).body).toMatchObject({
        status: 'ok',
        redis: { status: 'up' },
      });
      await request(gateway.url).get('/metrics').expect(404);
      for (const transports of [['websocket'], ['polling']] as const) {
        llm.enqueue({ text: `Through the gateway (${transports[0]}).`, chunkSize: 3 });
        const client = await AiSocketClient.connect(gateway.url, {
          token: tokenOf('quentin'),
          transports: [...transports],
        });
        clients.push(client);
        const answer = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Hello' }, 10_000);
        expect(answer.complete).toMatchObject({ fullText: `Through the gateway (${transports[0]}).` });
      }
    } finally {
      await gateway.stop();
    }
  });

  it('keeps a stream going when Redis dies mid-stream (its log stays on its instance, rejoinable there), serves alone (degraded), and shares again once Redis is back', async () => {
    const [a, b] = instances;
    llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, delayMs: 25 });
    const first = await connect(a, 'petra');
    first.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through the workflow' });
    await first.waitUntil(() => textOf(first.eventsOf(1)).length >= 40, 10_000, 'some text on A');
    const threadId = (first.eventsOf(1)[0].payload as { threadId: string }).threadId;

    await redis.kill();
    await sleep(150); // the next events can only be logged on A
    const seen = first.eventsOf(1);
    first.close(); // AI_DISCONNECT_POLICY=continue: the generation goes on
    const lastSeq = seqOf(seen.at(-1)!)!;
    const onA = await connect(a, 'petra');
    onA.socket.emit('ai:rejoin', { _id: 1, threadId, lastSeq });
    const rest = await onA.terminalOf(1, 10_000);
    expect(rest.complete).toMatchObject({ threadId, fullText: SLOW_ANSWER });
    expect(rest.complete!.aborted).toBeUndefined();
    expect(rest.events.map(seqOf)).toEqual(rest.events.map((_, index) => lastSeq + 1 + index));
    expect(textOf(seen) + rest.text).toBe(SLOW_ANSWER);
    const thread = await request(a.url)
      .get(`/api/ai/thread/${threadId}`)
      .set('Authorization', `Bearer ${tokenOf('petra')}`)
      .expect(200);
    expect(thread.body.messages.at(-1)).toMatchObject({ role: 'assistant', content: SLOW_ANSWER });

    const degraded = await waitForHealth('degraded');
    expect(degraded[0]).toMatchObject({
      status: 'degraded',
      store: { status: 'up' },
      redis: { status: 'down', detail: expect.any(String) },
    });
    expect((await request(a.url).get('/metrics').expect(200)).text).toMatch(/^graph_ai_redis_up 0$/m);
    llm.enqueue({ text: 'Still here, alone.' });
    const alone = await onA.chat({ _id: 2, graphKey: GRAPH, message: 'Are you there?', threadId }, 10_000);
    expect(alone.complete).toMatchObject({ fullText: 'Still here, alone.' });
    expect(alone.events.map(seqOf)).toEqual(alone.events.map((_, index) => index + 1));

    await redis.restart();
    await waitForHealth('ok', 20_000);
    expect((await request(a.url).get('/metrics').expect(200)).text).toMatch(/^graph_ai_redis_up 1$/m);
    // Shared again: an unsaved change pushed to B is seen by A.
    const scout: GraphNode = {
      _key: 'shot-clock-scout',
      graphKey: GRAPH,
      type: 'api-call',
      sheet: '0',
      posX: 100,
      posY: 900,
      data: { description: 'Scout the shot clock violations' },
    };
    await request(b.url)
      .post(`/api/graphs/${GRAPH}/changes`)
      .set({ Authorization: `Bearer ${SYNC_TOKEN}`, 'X-Workspace': 'default' })
      .send({ upsertNodes: [scout], saved: false })
      .expect(202);
    const seenOnA = await request(a.url)
      .post('/api/rag/context')
      .set('Authorization', `Bearer ${tokenOf('petra')}`)
      .send({ graphKey: GRAPH, query: 'shot clock violations' })
      .expect(200);
    expect(seenOnA.body.context.relevantNodes[0]).toMatchObject({ _key: 'shot-clock-scout' });
    // ... and a request running on A can be rejoined on B again.
    llm.enqueue({ text: 'Back to sharing.', chunkSize: 4 });
    const shared = await onA.chat({ _id: 3, graphKey: GRAPH, message: 'And now?', threadId }, 10_000);
    const onB = await connect(b, 'petra');
    onB.socket.emit('ai:rejoin', { _id: 3, threadId, lastSeq: 0 });
    expect((await onB.terminalOf(3)).complete).toEqual(shared.complete);
  }, 60_000);
});

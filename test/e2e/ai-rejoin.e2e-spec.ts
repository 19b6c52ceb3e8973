import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { AiChatClient } from '../../client/src/ai-chat.client';
import { AiSocketClient } from '../support/ai-socket.client';
import { editorToken, longAnswer, seqOf, textOf } from '../support/request-events';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { TcpSwitchProxy } from '../support/tcp-switch.proxy';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'rejoin-e2e-secret-of-32-chars-at-least!';
const GRAPH = 'nba-workflow';
/** A long answer, streamed slowly in the tests below. */
const SLOW_ANSWER = longAnswer(60, 'p');
const tokenOf = (user: string) => editorToken(SECRET, user);

/** One instance without REDIS_URL: the request event log is in its memory (docs/protocol-notes.md, "Rejoin"). */
describe('ai:rejoin on one instance without Redis (docs/protocol.md §8.7)', () => {
  let llm: ScriptedLlmServer;
  const apps: TestApp[] = [];
  const clients: Array<{ close(): void }> = [];

  const start = async (env: Record<string, string> = {}) => {
    const app = await startTestApp({
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      ...env,
    });
    apps.push(app);
    return app;
  };
  const connect = async (app: TestApp, user: string) => {
    const client = await AiSocketClient.connect(app.url, { token: tokenOf(user) });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start();
  });
  afterAll(() => llm.close());
  beforeEach(() => llm.reset());
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  describe('AI_DISCONNECT_POLICY=continue', () => {
    it('keeps the generation going after a disconnect, and a new socket gets exactly the missed text and the rest', async () => {
      const app = await start({ AI_DISCONNECT_POLICY: 'continue' });
      llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, delayMs: 20 });
      const first = await connect(app, 'ada');
      first.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through it' });
      await first.waitUntil(() => textOf(first.eventsOf(1)).length >= 40, 10_000, 'some text');
      first.close();
      const seen = first.eventsOf(1);
      const lastSeq = seqOf(seen.at(-1)!)!;
      const threadId = (seen[0].payload as { threadId: string }).threadId;

      const second = await connect(app, 'ada');
      second.socket.emit('ai:rejoin', { _id: 9, threadId, lastSeq });
      const rest = await second.terminalOf(9, 10_000);
      expect(rest.events.map(seqOf)).toEqual(rest.events.map((_, index) => lastSeq + 1 + index));
      expect(textOf(seen) + rest.text).toBe(SLOW_ANSWER);
      expect(rest.complete).toMatchObject({ _id: 9, threadId, fullText: SLOW_ANSWER });
      expect(rest.complete).not.toHaveProperty('aborted');
    });

    it('stops the generation AI_REJOIN_GRACE_MS after the disconnect when nobody rejoined, cancelling upstream and keeping the partial text', async () => {
      const app = await start({ AI_DISCONNECT_POLICY: 'continue', AI_REJOIN_GRACE_MS: '1000' });
      llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, hangAfterChunks: 5 });
      const client = await connect(app, 'bea');
      client.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through it' });
      await client.firstToken(1);
      const threadId = (client.eventsOf(1)[0].payload as { threadId: string }).threadId;
      const closedAt = Date.now();
      client.close();
      const upstream = await llm.waitForClientClose(0, 5_000);
      expect(upstream.closedAt! - closedAt).toBeGreaterThanOrEqual(900);
      await sleep(200);
      const thread = await request(app.url)
        .get(`/api/ai/thread/${threadId}`)
        .set('Authorization', `Bearer ${tokenOf('bea')}`)
        .expect(200);
      expect(thread.body.messages.at(-1)).toMatchObject({ role: 'assistant', aborted: true });
    });

    it('stops the rejoined request on an ai:interrupt with the rejoin _id', async () => {
      const app = await start({ AI_DISCONNECT_POLICY: 'continue' });
      llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, hangAfterChunks: 5 });
      const first = await connect(app, 'cleo');
      first.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through it' });
      await first.firstToken(1);
      const threadId = (first.eventsOf(1)[0].payload as { threadId: string }).threadId;
      first.close();
      const second = await connect(app, 'cleo');
      second.socket.emit('ai:rejoin', { _id: 4, threadId, lastSeq: 0 });
      await second.firstToken(4);
      second.interrupt(4);
      expect((await second.terminalOf(4)).complete).toMatchObject({ aborted: true });
      await llm.waitForClientClose(0);
    });
  });

  it('with the default policy (abort) stops at the disconnect, and a rejoin replays up to the aborted terminal event', async () => {
    const app = await start();
    llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, delayMs: 20 });
    const first = await connect(app, 'dora');
    first.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through it' });
    await first.waitUntil(() => textOf(first.eventsOf(1)).length >= 20, 10_000, 'some text');
    first.close();
    await llm.waitForClientClose(0);
    const threadId = (first.eventsOf(1)[0].payload as { threadId: string }).threadId;

    const second = await connect(app, 'dora');
    second.socket.emit('ai:rejoin', { _id: 1, threadId, lastSeq: 1 });
    const replay = await second.terminalOf(1);
    expect(replay.complete).toMatchObject({ aborted: true, threadId });
    expect(replay.complete!.fullText).toBe(replay.text);
    expect(SLOW_ANSWER.startsWith(replay.text)).toBe(true);
  });

  it('refuses a malformed rejoin, a rejoin whose _id is in use, and one on a thread that is not the caller’s', async () => {
    const app = await start();
    llm.enqueue({ text: 'Mine.', chunkSize: 2 }, { text: SLOW_ANSWER, chunkSize: 4, hangAfterChunks: 3 });
    const owner = await connect(app, 'edda');
    const threadId = (await owner.chat({ _id: 1, graphKey: GRAPH, message: 'Hi' })).complete!.threadId;

    owner.emitRaw('ai:rejoin', { _id: 2, threadId, lastSeq: 0, extra: true });
    expect((await owner.terminalOf(2)).error).toMatchObject({ code: 'bad_request' });
    owner.emitRaw('ai:rejoin', { _id: 3, threadId, lastSeq: -1 });
    expect((await owner.terminalOf(3)).error).toMatchObject({ code: 'bad_request' });

    owner.socket.emit('ai:chat', { _id: 5, graphKey: GRAPH, message: 'Go on', threadId });
    await owner.firstToken(5);
    owner.socket.emit('ai:rejoin', { _id: 5, threadId, lastSeq: 0 });
    await owner.waitUntil(() => owner.eventsOf(null).length === 1, 5_000, 'the _id-in-use error');
    expect(owner.eventsOf(null)[0].payload).toMatchObject({ code: 'bad_request' });
    owner.interrupt(5);
    await owner.terminalOf(5);

    const stranger = await connect(app, 'fritz');
    stranger.socket.emit('ai:rejoin', { _id: 1, threadId, lastSeq: 0 });
    const refused = await stranger.terminalOf(1);
    expect(refused.error).toEqual({ _id: 1, code: 'not_found', error: expect.any(String), retryable: false });
    expect(refused.names).toEqual(['ai:error']);
  });

  it('lets one socket follow at most 16 rejoined requests at once', async () => {
    const app = await start();
    llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, hangAfterChunks: 3 });
    const owner = await connect(app, 'hugo');
    owner.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: 'Walk me through it' });
    await owner.firstToken(1);
    const threadId = (owner.eventsOf(1)[0].payload as { threadId: string }).threadId;
    const follower = await connect(app, 'hugo');
    for (let id = 1; id <= 17; id++) follower.socket.emit('ai:rejoin', { _id: id, threadId, lastSeq: 0 });
    expect((await follower.terminalOf(17)).error).toMatchObject({ code: 'bad_request' });
    expect(follower.eventsOf(16).map((event) => event.event)).toContain('ai:token');
    owner.interrupt(1);
    const ends = await Promise.all(Array.from({ length: 16 }, (_, index) => follower.terminalOf(index + 1)));
    expect(ends.every((end) => end.complete?.aborted === true)).toBe(true);
  });

  it('lets the real client package rejoin by itself after its connection dropped (development, one instance)', async () => {
    const app = await start({ AI_DISCONNECT_POLICY: 'continue' });
    llm.enqueue({ text: SLOW_ANSWER, chunkSize: 4, delayMs: 20 });
    const gateway = await TcpSwitchProxy.start(app.url);
    const client = new AiChatClient({
      url: gateway.url,
      token: tokenOf('gina'),
      transports: ['websocket'],
      coalesceMs: 0,
    });
    clients.push(client);
    try {
      const answer = client.chat({ graphKey: GRAPH, message: 'Walk me through it' });
      while (answer.text.length < 40) await sleep(20);
      gateway.dropAll();
      const outcome = await answer.done;
      expect(outcome).toMatchObject({ type: 'complete', event: { fullText: SLOW_ANSWER } });
      expect(answer.text).toBe(SLOW_ANSWER);
    } finally {
      await gateway.close();
    }
  });
});

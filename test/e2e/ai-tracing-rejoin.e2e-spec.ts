import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';
import { TestRedisServer } from '../support/test-redis.server';
import { waitUntil } from '../support/wait-until';

const GRAPH = 'nba-workflow';
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

const proposeNode = (nodeKey: string) => ({
  id: `call_${nodeKey}`,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 900, posY: 320, reason: 'Log the fetch errors' },
});

const pointerKey = (threadId: string) => `graph-ai:thread-run:${threadId}`;

/**
 * Two instances on one SQLite file and one Redis, each exporting its spans to its own in-memory exporter: a run on A
 * carries its trace context in the thread's pointer to its latest request, so the rejoin on B, and the resume B runs
 * for the socket that rejoined, are spans of A's trace (docs/observability.md, "Traces").
 */
describe('The trace of a run continued on another instance (rejoin over Redis)', () => {
  let llm: ScriptedLlmServer;
  let redis: TestRedisServer;
  let dataDir: string;
  const onA = new InMemorySpanExporter();
  const onB = new InMemorySpanExporter();
  let a: TestApp;
  let b: TestApp;
  const clients: AiSocketClient[] = [];

  const connect = async (app: TestApp, headers?: Record<string, string>) => {
    const client = await AiSocketClient.connect(app.url, headers ? { headers } : {});
    clients.push(client);
    return client;
  };
  const agentSpans = (exporter: InMemorySpanExporter, kind: string) =>
    exporter.getFinishedSpans().filter((span) => span.attributes['app.run.kind'] === kind);
  const rejoinSpan = (exporter: InMemorySpanExporter): ReadableSpan | undefined =>
    exporter.getFinishedSpans().find((span) => span.name === 'rejoin run');

  /** A chat on A that ends on a proposal waiting for approval, its pointer written to Redis. */
  const proposalOnA = async (nodeKey: string) => {
    llm.enqueue({ text: 'I suggest a log node.', toolCalls: [proposeNode(nodeKey)] });
    const client = await connect(a);
    const proposal = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Log the errors of fetch-api' });
    expect(proposal.complete!.interrupt).toMatchObject({ kind: 'approval' });
    const threadId = proposal.complete!.threadId;
    await waitUntil(() => redis.cli('EXISTS', pointerKey(threadId)) === '1', 5_000);
    const [run] = agentSpans(onA, 'chat');
    return { threadId, run };
  };

  beforeAll(async () => {
    [llm, redis] = await Promise.all([ScriptedLlmServer.start(), TestRedisServer.start()]);
    dataDir = mkdtempSync(path.join(tmpdir(), 'ai-tracing-rejoin-'));
    const env = {
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      AI_REJOIN_GRACE_MS: '20000',
    };
    a = await startTestApp(env, { spanExporter: onA });
    b = await startTestApp(env, { spanExporter: onB });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients.splice(0)) client.close();
    await b?.close({ keepData: true });
    await a?.close({ keepData: true });
    await Promise.all([llm?.close(), redis?.stop()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  beforeEach(() => {
    llm.reset();
    onA.reset();
    onB.reset();
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it("puts the rejoin on B, and the resume B runs for that socket, in the trace of A's run, as children of its span", async () => {
    const { threadId, run } = await proposalOnA('log-rejoined');
    const pointer = JSON.parse(redis.cli('GET', pointerKey(threadId))) as { trace?: { traceparent: string } };
    expect(pointer.trace?.traceparent).toBe(`00-${run.spanContext().traceId}-${run.spanContext().spanId}-01`);

    const follower = await connect(b);
    follower.socket.emit('ai:rejoin', { _id: 7, threadId, lastSeq: 0 });
    expect((await follower.terminalOf(7)).complete?.interrupt).toMatchObject({ kind: 'approval' });
    await waitUntil(() => rejoinSpan(onB) !== undefined, 5_000);
    const rejoin = rejoinSpan(onB)!;
    expect(rejoin.spanContext().traceId).toBe(run.spanContext().traceId);
    expect(rejoin.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(rejoin.links).toEqual([]);
    expect(rejoin.attributes).toMatchObject({ 'gen_ai.conversation.id': threadId });

    llm.enqueue({ text: 'Added.' });
    const resumed = await follower.resume({ _id: 8, threadId, approved: true });
    expect(resumed.complete).toMatchObject({ threadId });
    const [resume] = agentSpans(onB, 'resume');
    expect(resume.spanContext().traceId).toBe(run.spanContext().traceId);
    expect(resume.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    // Nothing of this trace was started on B as a trace of its own.
    expect(onB.getFinishedSpans().every((span) => span.spanContext().traceId === run.spanContext().traceId)).toBe(true);
  });

  it("keeps a rejoin's own traceparent (handshake) as its parent, linked to the run's span", async () => {
    const { threadId, run } = await proposalOnA('log-linked');
    const follower = await connect(b, { traceparent: `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01` });
    follower.socket.emit('ai:rejoin', { _id: 3, threadId, lastSeq: 0 });
    await follower.terminalOf(3);
    await waitUntil(() => rejoinSpan(onB) !== undefined, 5_000);
    const rejoin = rejoinSpan(onB)!;
    expect(rejoin.spanContext().traceId).toBe(CALLER_TRACE_ID);
    expect(rejoin.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(rejoin.links.map((link) => link.context)).toEqual([
      expect.objectContaining({ traceId: run.spanContext().traceId, spanId: run.spanContext().spanId }),
    ]);
  });

  it('publishes no trace context from an instance without tracing', async () => {
    const untraced = await startTestApp({
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
    });
    try {
      llm.enqueue({ text: 'Nothing traced.' });
      const client = await AiSocketClient.connect(untraced.url);
      clients.push(client);
      const answer = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Hello' });
      const threadId = answer.complete!.threadId;
      await waitUntil(() => redis.cli('EXISTS', pointerKey(threadId)) === '1', 5_000);
      expect(Object.keys(JSON.parse(redis.cli('GET', pointerKey(threadId))) as object).sort()).toEqual([
        'owner',
        'runKey',
      ]);
    } finally {
      await untraced.close({ keepData: true });
    }
  });
});

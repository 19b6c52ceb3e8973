import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';
import { TestAppProcess } from '../support/test-app.process';
import { waitUntil } from '../support/wait-until';

const GRAPH = 'nba-workflow';
const MODEL = 'gpt-4o-mini';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

const proposeNode = (nodeKey: string) => ({
  id: `call_${nodeKey}`,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 900, posY: 320, reason: 'Log the fetch errors' },
});

/** One trace's spans as a tree of names, children in start order. */
interface SpanTree {
  name: string;
  children: SpanTree[];
}

function treeOf(spans: readonly ReadableSpan[], root: ReadableSpan): SpanTree {
  const children = spans
    .filter((span) => span.parentSpanContext?.spanId === root.spanContext().spanId)
    .sort((a, b) => hrTimeMs(a.startTime) - hrTimeMs(b.startTime));
  return { name: root.name, children: children.map((child) => treeOf(spans, child)) };
}

function hrTimeMs([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}

describe('OpenTelemetry GenAI traces (docs/observability.md, "Traces")', () => {
  let llm: ScriptedLlmServer;
  let dataDir: string;

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start();
    dataDir = mkdtempSync(path.join(tmpdir(), 'ai-tracing-'));
  });
  afterAll(async () => {
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => llm.reset());

  describe('spans of the runs, in memory', () => {
    const exporter = new InMemorySpanExporter();
    let app: TestApp;
    const clients: AiSocketClient[] = [];

    const runSpans = (kind: string) =>
      exporter.getFinishedSpans().filter((span) => span.attributes['app.run.kind'] === kind);
    const traceOf = (root: ReadableSpan) =>
      exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === root.spanContext().traceId);

    beforeAll(async () => {
      app = await startTestApp(
        { ...llm.providerEnv('openai'), LLM_MODEL: MODEL, EMBEDDING_PROVIDER: 'none', DATA_DIR: dataDir },
        { spanExporter: exporter },
      );
    });
    afterAll(() => app.close({ keepData: true }));
    beforeEach(() => exporter.reset());
    afterEach(() => {
      for (const client of clients.splice(0)) client.close();
    });

    it('traces a chat with a tool round: invoke_agent over retrieval, memory recall, chat, execute_tool and commits, with the gen_ai attributes and no content', async () => {
      llm.enqueue(
        {
          toolCalls: [{ id: 'call_detail', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
          usage: { prompt: 1200, completion: 12, cached: 1000 },
        },
        { text: 'fetch-api calls the API.', usage: { prompt: 1400, completion: 8, cached: 0 } },
      );
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`)
        .send({ graphKey: GRAPH, message: 'What does fetch-api do?' })
        .expect(200);

      const [agent] = runSpans('chat');
      expect(agent.name).toBe('invoke_agent graph-ai-assistant');
      // Part of the caller's trace (its traceparent), a child of the caller's span.
      expect(agent.spanContext().traceId).toBe(TRACE_ID);
      expect(agent.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
      expect(agent.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'graph-ai-assistant',
        'gen_ai.conversation.id': answer.body.threadId,
        'app.run.outcome': 'message',
      });
      const tree = treeOf(traceOf(agent), agent);
      // A new thread is created with its question stored (no commit of the run's own before the retrieval).
      expect(tree.children.map((child) => child.name)).toEqual([
        'retrieval graph',
        'memory recall',
        'thread commit',
        `chat ${MODEL}`,
        'execute_tool read_node_detail',
        'thread commit',
        `chat ${MODEL}`,
        'thread commit',
      ]);

      const chats = traceOf(agent).filter((span) => span.name === `chat ${MODEL}`);
      expect(chats[0].kind).toBe(2); // CLIENT
      expect(chats[0].attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': MODEL,
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 12,
        'gen_ai.usage.cache_read.input_tokens': 1000,
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'gen_ai.conversation.id': answer.body.threadId,
      });
      expect(chats[1].attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 1400,
        'gen_ai.response.finish_reasons': ['stop'],
      });
      const tool = traceOf(agent).find((span) => span.name === 'execute_tool read_node_detail')!;
      expect(tool.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'read_node_detail',
        'gen_ai.tool.call.id': 'call_detail',
        'gen_ai.tool.type': 'function',
      });
      const retrieval = traceOf(agent).find((span) => span.name === 'retrieval graph')!;
      expect(retrieval.attributes).toMatchObject({
        'gen_ai.operation.name': 'retrieval',
        'gen_ai.data_source.id': GRAPH,
      });

      // No message content without the opt-in: neither the question nor the answer is in any attribute.
      const everything = JSON.stringify(traceOf(agent).map((span) => span.attributes));
      expect(everything).not.toContain('What does fetch-api do?');
      expect(everything).not.toContain('fetch-api calls the API.');
      expect(everything).not.toContain('gen_ai.input.messages');
    });

    it('traces a resume (Socket.IO, traceparent in the handshake) as its own invoke_agent, and an upstream failure as an error.type', async () => {
      llm.enqueue(
        { text: 'I suggest a log node.', toolCalls: [proposeNode('log-traced')] },
        { error: { status: 500 } },
      );
      const client = await AiSocketClient.connect(app.url, {
        headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` },
      });
      clients.push(client);
      const proposal = await client.chat({ _id: 1, graphKey: GRAPH, message: 'Log the errors of fetch-api' });
      expect(proposal.complete!.interrupt).toMatchObject({ kind: 'approval' });
      expect(runSpans('chat')[0].attributes['app.run.outcome']).toBe('interrupt_approval');
      expect(runSpans('chat')[0].spanContext().traceId).toBe(TRACE_ID);

      const resumed = await client.resume({ _id: 2, threadId: proposal.complete!.threadId, approved: true });
      expect(resumed.error).toMatchObject({ code: 'server_error' });
      const [resume] = runSpans('resume');
      expect(resume.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'app.resume.approved': true,
        'gen_ai.conversation.id': proposal.complete!.threadId,
        'error.type': 'server_error',
      });
      expect(resume.status.code).toBe(2); // ERROR
      const failed = traceOf(resume).find(
        (span) => span.name === `chat ${MODEL}` && span.parentSpanContext?.spanId === resume.spanContext().spanId,
      )!;
      expect(failed.attributes['error.type']).toBe('server_error');
      expect(failed.status.code).toBe(2);
    });

    it('traces an automation run', async () => {
      llm.enqueue({ text: 'Nothing to report.' });
      const automation = await request(app.url)
        .post('/api/ai/automations')
        .send({
          name: 'Traced review',
          graphKey: GRAPH,
          prompt: 'Review the error handling.',
          schedule: { cron: '0 9 * * 1', timezone: 'UTC' },
        })
        .expect(200);
      const started = await request(app.url)
        .post(`/api/ai/automations/${automation.body.automationId}/run`)
        .expect(200);
      await waitUntil(() => runSpans('automation').length > 0, 10_000);
      const [run] = runSpans('automation');
      expect(run.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': started.body.threadId,
        'app.run.outcome': 'message',
      });
      expect(treeOf(traceOf(run), run).children.map((child) => child.name)).toContain(`chat ${MODEL}`);
    });
  });

  it('records the messages only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', async () => {
    const exporter = new InMemorySpanExporter();
    const app = await startTestApp(
      {
        ...llm.providerEnv('openai'),
        LLM_MODEL: MODEL,
        EMBEDDING_PROVIDER: 'none',
        DATA_DIR: dataDir,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      },
      { spanExporter: exporter },
    );
    try {
      llm.enqueue({ text: 'Hello back.' });
      await request(app.url).post('/api/ai/chat').send({ graphKey: GRAPH, message: 'Hello, traced' }).expect(200);
      const chat = exporter.getFinishedSpans().find((span) => span.name === `chat ${MODEL}`)!;
      const input = JSON.parse(chat.attributes['gen_ai.input.messages'] as string) as Array<{
        role: string;
        parts: Array<{ content?: string }>;
      }>;
      expect(input.filter((message) => message.role === 'user')).toEqual([
        { role: 'user', parts: [{ type: 'text', content: 'Hello, traced' }] },
      ]);
      expect(JSON.parse(chat.attributes['gen_ai.output.messages'] as string)).toEqual([
        { role: 'assistant', parts: [{ type: 'text', content: 'Hello back.' }] },
      ]);
    } finally {
      await app.close({ keepData: true });
    }
  });

  describe('OTLP/HTTP export to a collector', () => {
    let collector: Server;
    const received: Array<{ path: string; contentType: string; body: OtlpTraces }> = [];

    beforeAll(async () => {
      collector = createServer((req, res) => {
        void readBody(req).then((body) => {
          received.push({
            path: req.url ?? '',
            contentType: req.headers['content-type'] ?? '',
            body: JSON.parse(body),
          });
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

    // A process of its own: the exporter loads node:http with a dynamic import, as in production (not in Jest's VM).
    it('exports the spans of a chat over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, flushed when the service stops', async () => {
      const port = (collector.address() as AddressInfo).port;
      const app = await TestAppProcess.start(
        {
          ...llm.providerEnv('openai'),
          LLM_MODEL: MODEL,
          EMBEDDING_PROVIDER: 'none',
          DATA_DIR: dataDir,
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/`,
          OTEL_SERVICE_NAME: 'assistant-under-test',
        },
        { timeoutMs: 60_000 },
      );
      llm.enqueue({ text: 'Exported.', usage: { prompt: 300, completion: 2, cached: 0 } });
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: 'Export me' })
        .expect(200);
      // Long enough for a loaded machine: a kill before the flush would lose the batch.
      await app.close(60_000);

      expect(received.length).toBeGreaterThan(0);
      expect(received.every((post) => post.path === '/v1/traces')).toBe(true);
      expect(received[0].contentType).toContain('application/json');
      const resourceSpans = received.flatMap((post) => post.body.resourceSpans);
      expect(resourceSpans[0].resource.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'assistant-under-test' },
      });
      const spans = resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
      const agent = spans.find((span) => span.name === 'invoke_agent graph-ai-assistant')!;
      const chat = spans.find((span) => span.name === `chat ${MODEL}`)!;
      expect(chat.traceId).toBe(agent.traceId);
      expect(chat.parentSpanId).toBe(agent.spanId);
      expect(chat.attributes).toEqual(
        expect.arrayContaining([
          { key: 'gen_ai.provider.name', value: { stringValue: 'openai' } },
          { key: 'gen_ai.usage.input_tokens', value: { intValue: 300 } },
          { key: 'gen_ai.conversation.id', value: { stringValue: answer.body.threadId } },
        ]),
      );
    });
  });
});

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

interface OtlpTraces {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: Array<{
      spans: Array<{
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes: OtlpAttribute[];
      }>;
    }>;
  }>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

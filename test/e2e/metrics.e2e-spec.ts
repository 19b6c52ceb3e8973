import request from 'supertest';
import { MetricsController } from '../../src/health/metrics.controller';
import { AiSocketClient } from '../support/ai-socket.client';
import { PrometheusSamples } from '../support/prometheus-samples';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
const proposeLogNode = {
  id: 'call_create',
  name: 'propose_create_node',
  arguments: {
    nodeKey: 'log-errors',
    typeKey: 'log-node',
    sheet: '0',
    posX: 820,
    posY: 300,
    reason: 'Log the fetch errors',
  },
};
const OPENAI = { provider: 'openai', model: 'gpt-4o' };

async function scrape(app: TestApp): Promise<PrometheusSamples> {
  const response = await request(app.url).get('/metrics').expect(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return new PrometheusSamples(response.text);
}

describe(`${MetricsController.name} (GET /metrics, end to end)`, () => {
  let server: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start({ embeddingDimension: 1536 });
    // OPENAI_API_KEY also selects OpenAI embeddings (text-embedding-3-small, 1536 dimensions, same scripted server): hybrid retrieval, embedding tokens.
    app = await startTestApp(server.providerEnv('openai'));
  });
  afterAll(async () => {
    await app?.close();
    await server.close();
  });
  beforeEach(() => server.reset());

  it('is public, outside /api, in the Prometheus text format, with the process metrics prefixed', async () => {
    const samples = await scrape(app);
    expect(samples.typeOf('graph_ai_process_cpu_seconds_total')).toBe('counter');
    expect(samples.typeOf('graph_ai_nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(samples.typeOf('graph_ai_http_request_duration_seconds')).toBe('histogram');
    await request(app.url).get('/api/metrics').expect(404);
  });

  it('counts chats over REST and the socket, a retrieval miss then hit, an interrupt and its rejection, errors and a stopped run, with bounded labels', async () => {
    const before = await scrape(app);
    const threadIds: string[] = [];

    // REST chat, with the usage the provider reports.
    server.enqueue({ text: 'Hello over REST.', usage: { prompt: 1200, completion: 8, cached: 1000 } });
    const rest = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'What does fetch-api do?' })
      .expect(200);
    threadIds.push(rest.body.threadId);

    // Socket chat, a socket request that fails, and one stopped by ai:interrupt while it streams.
    const client = await AiSocketClient.connect(app.url);
    try {
      server.enqueue({ text: 'Hello over the socket.' });
      const answered = await client.chat({ _id: 1, graphKey: GRAPH, message: 'And filter-active?' });
      expect(answered.complete).toBeDefined();
      threadIds.push(answered.complete!.threadId);
      const failed = await client.chat({ _id: 2, graphKey: 'no-such-graph', message: 'Hello?' });
      expect(failed.error).toMatchObject({ code: 'not_found' });

      server.enqueue({
        text: 'fetch-api calls the NBA stats API and then it goes on and on',
        chunkSize: 5,
        hangAfterChunks: 4,
      });
      client.socket.emit('ai:chat', { _id: 3, graphKey: GRAPH, message: 'Explain fetch-api at length' });
      await client.firstToken(3);
      expect((await scrape(app)).sum('graph_ai_active_generations')).toBe(1);
      client.interrupt(3);
      const stopped = await client.terminalOf(3);
      expect(stopped.complete).toMatchObject({ aborted: true });
      threadIds.push(stopped.complete!.threadId);
      const streamed = server.requests.filter((recorded) => recorded.endpoint === 'openai.chat').at(-1)!;
      await server.waitForClientClose(streamed.index);
    } finally {
      client.close();
    }

    // The same retrieval twice: computed, then from the cache.
    const retrieval = { graphKey: GRAPH, query: 'Which node sorts the player statistics?' };
    const miss = await request(app.url).post('/api/rag/context').send(retrieval).expect(200);
    const hit = await request(app.url).post('/api/rag/context').send(retrieval).expect(200);
    expect([miss.body.context.retrieval.cacheHit, hit.body.context.retrieval.cacheHit]).toEqual([false, true]);

    // A proposal, rejected.
    server.enqueue({ text: 'I propose a log node.', toolCalls: [proposeLogNode] }, { text: 'Fine, nothing added.' });
    const interrupted = await request(app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: 'Log the errors of fetch-api' })
      .expect(200);
    expect(interrupted.body.type).toBe('interrupt');
    threadIds.push(interrupted.body.threadId);
    await request(app.url)
      .post('/api/ai/resume')
      .send({ threadId: interrupted.body.threadId, approved: false })
      .expect(200);

    // Errors: the upstream refuses the key; a thread that does not exist; a route that does not exist.
    server.enqueue({ error: { status: 401 } });
    await request(app.url).post('/api/ai/chat').send({ graphKey: GRAPH, message: 'Hello?' }).expect(502);
    await request(app.url).get('/api/ai/thread/ai_0000000000000000000000nope').expect(404);
    await request(app.url).get('/api/no/such/route/42').expect(404);
    await request(app.url)
      .post('/api/ai/chat')
      .set('Content-Type', 'application/json')
      .send('{"graphKey":')
      .expect(400);

    const after = await scrape(app);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      after.sum(name, labels) - before.sum(name, labels);

    // HTTP: route templates and status codes, never raw paths.
    const chatRoute = { method: 'POST', route: '/api/ai/chat' };
    expect(delta('graph_ai_http_requests_total', { ...chatRoute, status_code: '200', status_class: '2xx' })).toBe(2);
    expect(delta('graph_ai_http_requests_total', { ...chatRoute, status_code: '502', status_class: '5xx' })).toBe(1);
    expect(delta('graph_ai_http_requests_total', { method: 'POST', route: '/api/ai/resume', status_code: '200' })).toBe(
      1,
    );
    expect(
      delta('graph_ai_http_requests_total', { method: 'POST', route: '/api/rag/context', status_code: '200' }),
    ).toBe(2);
    expect(
      delta('graph_ai_http_requests_total', { method: 'GET', route: '/api/ai/thread/:threadId', status_code: '404' }),
    ).toBe(1);
    expect(delta('graph_ai_http_requests_total', { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1);
    // Refused by the body parser, before any route: counted all the same.
    expect(delta('graph_ai_http_requests_total', { method: 'POST', route: 'unmatched', status_code: '400' })).toBe(1);
    expect(delta('graph_ai_http_request_duration_seconds_count', { ...chatRoute, status_class: '2xx' })).toBe(2);
    expect(
      delta('graph_ai_http_request_duration_seconds_bucket', { ...chatRoute, status_class: '2xx', le: '+Inf' }),
    ).toBe(2);
    expect(delta('graph_ai_http_request_duration_seconds_sum', { ...chatRoute, status_class: '2xx' })).toBeGreaterThan(
      0,
    );

    // Socket.IO: by event and outcome.
    expect(delta('graph_ai_socket_events_total', { event: 'ai:chat', outcome: 'ok' })).toBe(1);
    expect(delta('graph_ai_socket_events_total', { event: 'ai:chat', outcome: 'not_found' })).toBe(1);
    expect(delta('graph_ai_socket_events_total', { event: 'ai:chat', outcome: 'aborted' })).toBe(1);
    expect(delta('graph_ai_socket_events_total', { event: 'ai:interrupt', outcome: 'ok' })).toBe(1);
    expect(after.sum('graph_ai_active_generations')).toBe(0);
    // The run scheduling (docs/agent.md, "A burst of new conversations", "A share of each turn for the streams"): exposed, and empty once the runs are over.
    expect(after.typeOf('graph_ai_runs_waiting_for_setup')).toBe('gauge');
    expect(after.typeOf('graph_ai_streams_giving_way')).toBe('gauge');
    expect(after.sum('graph_ai_runs_waiting_for_setup')).toBe(0);
    expect(after.sum('graph_ai_streams_giving_way')).toBe(0);
    expect(after.typeOf('graph_ai_streams_put_off')).toBe('gauge');
    expect(after.sum('graph_ai_streams_put_off')).toBe(0);

    // Tokens and cost: the reported usage of the REST chat at least, chat and embeddings.
    expect(delta('graph_ai_llm_tokens_total', { ...OPENAI, kind: 'chat', type: 'prompt' })).toBeGreaterThanOrEqual(
      1200,
    );
    expect(delta('graph_ai_llm_tokens_total', { ...OPENAI, kind: 'chat', type: 'cached' })).toBeGreaterThanOrEqual(
      1000,
    );
    expect(delta('graph_ai_llm_tokens_total', { ...OPENAI, kind: 'chat', type: 'completion' })).toBeGreaterThanOrEqual(
      8,
    );
    // gpt-4o: 200 × 2.5 + 1000 × 1.25 + 8 × 10 per million, for the REST chat alone.
    expect(delta('graph_ai_llm_cost_usd_total', { ...OPENAI, kind: 'chat' })).toBeGreaterThanOrEqual(
      (200 * 2.5 + 1000 * 1.25 + 8 * 10) / 1e6,
    );
    const embedding = { provider: 'openai', model: 'text-embedding-3-small', kind: 'embedding' };
    expect(delta('graph_ai_llm_tokens_total', { ...embedding, type: 'prompt' })).toBeGreaterThan(0);
    expect(delta('graph_ai_llm_cost_usd_total', embedding)).toBeGreaterThan(0);

    // LLM latency and upstream errors: 4 calls answered in full (2 chats, the proposal, the resume), 1 stopped, 1 refused.
    expect(delta('graph_ai_llm_time_to_first_token_seconds_count', OPENAI)).toBe(5);
    expect(delta('graph_ai_llm_request_duration_seconds_count', { ...OPENAI, outcome: 'ok' })).toBe(4);
    expect(delta('graph_ai_llm_request_duration_seconds_count', { ...OPENAI, outcome: 'aborted' })).toBe(1);
    expect(delta('graph_ai_llm_request_duration_seconds_count', { ...OPENAI, outcome: 'error' })).toBe(1);
    expect(delta('graph_ai_llm_upstream_errors_total', { ...OPENAI, code: 'auth_error', retried: 'false' })).toBe(1);

    // Retrieval: each of the 5 chats on the graph retrieves (all different questions), then the explicit miss and hit.
    expect(delta('graph_ai_retrieval_cache_misses_total')).toBe(6);
    expect(delta('graph_ai_retrieval_cache_hits_total')).toBe(1);
    expect(delta('graph_ai_retrieval_duration_seconds_count', { search_mode: 'hybrid', cache: 'hit' })).toBe(1);
    expect(delta('graph_ai_retrieval_duration_seconds_count', { cache: 'miss' })).toBe(6);
    // "Hello?" matches nothing: the graph's first nodes (fallback); every other question is answered by hybrid search.
    expect(delta('graph_ai_retrieval_duration_seconds_count', { search_mode: 'fallback', cache: 'miss' })).toBe(1);

    // Human in the loop.
    expect(delta('graph_ai_hitl_interrupts_total', { outcome: 'proposed' })).toBe(1);
    expect(delta('graph_ai_hitl_interrupts_total', { outcome: 'rejected' })).toBe(1);

    // Bounded labels: no thread id, graph key, user or raw path anywhere.
    const labelValues = new Set(after.samples.flatMap((sample) => Object.values(sample.labels)));
    for (const forbidden of [
      ...threadIds,
      'ai_0000000000000000000000nope',
      GRAPH,
      'no-such-graph',
      'anonymous',
      '/api/no/such/route/42',
    ]) {
      expect([...labelValues].filter((value) => value.includes(forbidden))).toEqual([]);
    }
  });

  it('keeps the counters of two apps in one process apart', async () => {
    const other = await startTestApp();
    try {
      await request(other.url).get('/health').expect(200);
      const mine = await scrape(app);
      const theirs = await scrape(other);
      expect(theirs.sum('graph_ai_http_requests_total', { route: '/api/ai/chat' })).toBe(0);
      expect(theirs.sum('graph_ai_hitl_interrupts_total')).toBe(0);
      expect(theirs.sum('graph_ai_http_requests_total', { route: '/health' })).toBe(1);
      expect(mine.sum('graph_ai_http_requests_total', { route: '/health' })).toBe(0);
      expect(mine.sum('graph_ai_http_requests_total', { route: '/api/ai/chat' })).toBeGreaterThan(0);
      expect(theirs.typeOf('graph_ai_process_cpu_seconds_total')).toBe('counter');
    } finally {
      await other.close();
    }
  });
});

import { setTimeout as delay } from 'node:timers/promises';
import { collectLlmStream } from '../../test/support/collect-llm-stream';
import { ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { LogEntry } from '../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../observability/logger';
import { AnthropicProvider } from './anthropic.provider';
import { isAbortError, LlmAbortError } from './llm-abort.error';
import { LlmCallLabels, LlmCallObserver, LlmCallOutcome } from './llm-call.observer';
import { LlmMessage } from '../conversation/llm-message';
import { LlmProvider } from './llm-provider';
import { LlmProviderError } from './llm-provider.error';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import { RetryingLlmProvider } from './retrying-llm.provider';

const messages: LlmMessage[] = [{ role: 'user', content: 'Explain the graph' }];
const FAST_BACKOFF = { baseDelayMs: 5, maxDelayMs: 20 };

async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe(RetryingLlmProvider.name, () => {
  let server: ScriptedLlmServer;
  let logs: LogEntry[];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  function openai(maxRetries = 2, backoff: object = FAST_BACKOFF, streamIdleTimeoutMs?: number): LlmProvider {
    const inner = new OpenAiCompatibleProvider({
      providerName: 'deepseek',
      baseURL: server.openAiBaseUrl,
      apiKey: 'sk-test',
      model: 'deepseek-chat',
      streamIdleTimeoutMs,
    });
    return new RetryingLlmProvider(inner, { maxRetries, backoff });
  }

  function anthropic(maxRetries = 2): LlmProvider {
    const inner = new AnthropicProvider({
      baseURL: server.anthropicBaseUrl,
      apiKey: 'sk-ant-test',
      model: 'claude-sonnet-4-20250514',
    });
    return new RetryingLlmProvider(inner, { maxRetries, backoff: FAST_BACKOFF, locale: 'fr' });
  }

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(async () => {
    resetLogSink();
    // Let any stray promise settle before checking that none was left rejected.
    await delay(20);
    expect(unhandled).toEqual([]);
  });

  describe('retries', () => {
    it('retries a 429 after its Retry-After, then succeeds', async () => {
      server.enqueue({ error: { status: 429, headers: { 'retry-after': '1' } } }, { text: 'Recovered.' });
      const result = await collectLlmStream(openai().stream(messages));
      expect(result.text).toBe('Recovered.');
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1].receivedAt - server.requests[0].receivedAt).toBeGreaterThanOrEqual(950);
      expect(logs.filter((log) => log.event === 'llm_retry')).toEqual([
        expect.objectContaining({
          provider: 'deepseek',
          code: 'rate_limit',
          statusCode: 429,
          attempt: 1,
          delayMs: 1000,
        }),
      ]);
    });

    it('retries 500 and a connection cut before the first chunk, with backoff', async () => {
      server.enqueue(
        { error: { status: 500 } },
        { text: 'never seen', disconnectAfterChunks: 1 },
        { text: 'Third time lucky.' },
      );
      const result = await collectLlmStream(openai().stream(messages));
      expect(result.text).toBe('Third time lucky.');
      expect(server.requests).toHaveLength(3);
    });

    it('retries an Anthropic 529 overloaded answer', async () => {
      server.enqueue({ error: { status: 529 } }, { text: 'Bonjour.' });
      const completion = await anthropic().complete(messages);
      expect(completion.message.content).toBe('Bonjour.');
      expect(server.requests).toHaveLength(2);
    });

    it('does not retry a 401 and throws it classified', async () => {
      server.enqueue({ error: { status: 401 } }, { text: 'unused' });
      const error = await failure(collectLlmStream(openai().stream(messages)));
      expect(error).toBeInstanceOf(LlmProviderError);
      expect(error).toMatchObject({
        code: 'auth_error',
        retryable: false,
        statusCode: 502,
        provider: 'deepseek',
        upstreamStatus: 401,
      });
      expect(server.requests).toHaveLength(1);
      expect(server.pendingTurns).toBe(1);
      expect(logs.filter((log) => log.event === 'llm_error')).toEqual([
        expect.objectContaining({
          provider: 'deepseek',
          model: 'deepseek-chat',
          code: 'auth_error',
          statusCode: 401,
          attempt: 0,
        }),
      ]);
    });

    it('gives up after AI_MAX_RETRIES with the classified error', async () => {
      server.enqueue(
        { error: { status: 503 } },
        { error: { status: 503 } },
        { error: { status: 503 } },
        { text: 'unused' },
      );
      const error = await failure(openai(2).complete(messages));
      expect(error).toMatchObject({ code: 'server_error', retryable: true, upstreamStatus: 503 });
      expect(error.message).toBe('The AI service is temporarily unavailable. Please try again in a few moments.');
      expect(server.requests).toHaveLength(3);
      expect(logs.filter((log) => log.event === 'llm_retry')).toHaveLength(2);
      expect(logs.filter((log) => log.event === 'llm_error')).toHaveLength(1);
    });

    it('localizes the final error (fr)', async () => {
      server.enqueue({ error: { status: 400, message: 'prompt is too long: 200251 tokens > 200000 maximum' } });
      const error = await failure(anthropic().complete(messages));
      expect(error).toMatchObject({ code: 'context_length', statusCode: 422 });
      expect(error.message).toBe(
        'La conversation est trop longue pour le modèle. Commencez une nouvelle conversation ou posez une question plus courte.',
      );
    });

    it('does not wait for a Retry-After longer than 10 s', async () => {
      server.enqueue({ error: { status: 429, headers: { 'retry-after': '30' } } }, { text: 'unused' });
      const startedAt = Date.now();
      const error = await failure(collectLlmStream(openai().stream(messages)));
      expect(Date.now() - startedAt).toBeLessThan(1000);
      expect(error).toMatchObject({ code: 'rate_limit', retryable: true, retryAfterMs: 30_000 });
      expect(server.requests).toHaveLength(1);
    });

    it('never retries once a token was emitted: a mid-stream disconnect is thrown after the tokens', async () => {
      server.enqueue(
        { text: 'Hello world, this will be cut', chunkSize: 5, delayMs: 20, disconnectAfterChunks: 3 },
        { text: 'unused' },
      );
      const tokens: string[] = [];
      const error = await failure(
        (async () => {
          for await (const chunk of openai().stream(messages)) if (chunk.type === 'token') tokens.push(chunk.token);
        })(),
      );
      expect(tokens.join('')).toBe('Hello worl');
      expect(error).toMatchObject({ code: 'network', retryable: true });
      expect(server.requests).toHaveLength(1);
      expect(logs.find((log) => log.event === 'llm_error')).toMatchObject({ afterFirstChunk: true });
    });

    it('cuts a stream that goes silent: retried before the first chunk, a timeout after it', async () => {
      server.enqueue({ text: 'stalls before any text', hangAfterChunks: 1 }, { text: 'Fresh answer.' });
      const recovered = await collectLlmStream(openai(2, FAST_BACKOFF, 150).stream(messages));
      expect(recovered.text).toBe('Fresh answer.');
      await server.waitForClientClose(0);

      server.enqueue({ text: 'stalls mid-answer', chunkSize: 6, hangAfterChunks: 2 }, { text: 'unused' });
      const tokens: string[] = [];
      const error = await failure(
        (async () => {
          for await (const chunk of openai(2, FAST_BACKOFF, 150).stream(messages))
            if (chunk.type === 'token') tokens.push(chunk.token);
        })(),
      );
      expect(tokens).toEqual(['stalls']);
      expect(error).toMatchObject({ code: 'timeout', retryable: true, statusCode: 504 });
      expect(server.requests).toHaveLength(3);
      await server.waitForClientClose(2);
    });

    it('with AI_MAX_RETRIES=0 fails at once', async () => {
      server.enqueue({ error: { status: 429 } }, { text: 'unused' });
      await expect(openai(0).complete(messages)).rejects.toMatchObject({ code: 'rate_limit' });
      expect(server.requests).toHaveLength(1);
    });
  });

  it('emits llm_call_start / llm_call_done only under AI_DEBUG, with provider, model and tokens', async () => {
    server.enqueue({ text: 'quiet' }, { text: 'traced', usage: { prompt: 12, completion: 3, cached: 4 } });
    await collectLlmStream(openai().stream(messages));
    expect(logs.filter((log) => log.event.startsWith('llm_call_'))).toEqual([]);
    configureLogging({ aiDebug: true });
    try {
      await collectLlmStream(openai().stream(messages));
    } finally {
      configureLogging({ aiDebug: false });
    }
    expect(logs.filter((log) => log.event.startsWith('llm_call_'))).toEqual([
      expect.objectContaining({
        event: 'llm_call_start',
        provider: 'deepseek',
        model: 'deepseek-chat',
        mode: 'stream',
        attempt: 0,
        messageCount: 1,
      }),
      expect.objectContaining({
        event: 'llm_call_done',
        provider: 'deepseek',
        promptTokens: 12,
        completionTokens: 3,
        cachedTokens: 4,
      }),
    ]);
  });

  describe('abort', () => {
    it('cancels the upstream request mid-stream and ends the iterator promptly with an abort error', async () => {
      server.enqueue({ text: 'A long answer that never finishes', chunkSize: 4, hangAfterChunks: 4 });
      const controller = new AbortController();
      const tokens: string[] = [];
      let abortedAt = 0;
      const error = await failure(
        (async () => {
          for await (const chunk of openai().stream(messages, [], { signal: controller.signal })) {
            if (chunk.type !== 'token') continue;
            tokens.push(chunk.token);
            if (tokens.length === 3) {
              abortedAt = Date.now();
              controller.abort();
            }
          }
        })(),
      );
      expect(Date.now() - abortedAt).toBeLessThan(1000);
      expect(error).toBeInstanceOf(LlmAbortError);
      expect(isAbortError(error)).toBe(true);
      expect(tokens.join('')).toBe('A long answe');
      const closed = await server.waitForClientClose(0);
      expect(closed).toMatchObject({ closedEarly: true, completed: false });
      expect(logs.filter((log) => log.event === 'llm_error')).toEqual([]);
    });

    it('aborts while waiting for the first byte (headers sent, no event yet)', async () => {
      server.enqueue({ text: 'never', hangAfterChunks: 0 });
      const controller = new AbortController();
      const pending = collectLlmStream(anthropic().stream(messages, [], { signal: controller.signal }));
      await server.waitForRequests(1);
      await delay(30);
      const abortedAt = Date.now();
      controller.abort();
      const error = await failure(pending);
      expect(Date.now() - abortedAt).toBeLessThan(1000);
      expect(isAbortError(error)).toBe(true);
      await server.waitForClientClose(0);
    });

    it('aborts a non-streaming call whose answer never comes', async () => {
      server.enqueue({ text: 'never', hangAfterChunks: 0 });
      const controller = new AbortController();
      const pending = openai().complete(messages, [], { signal: controller.signal });
      await server.waitForRequests(1);
      controller.abort();
      expect(isAbortError(await failure(pending))).toBe(true);
      await server.waitForClientClose(0);
    });

    it('ends a backoff wait as soon as the signal fires, without another request', async () => {
      server.enqueue({ error: { status: 429, headers: { 'retry-after': '5' } } }, { text: 'unused' });
      const controller = new AbortController();
      const pending = collectLlmStream(openai().stream(messages, [], { signal: controller.signal }));
      await server.waitForRequests(1);
      await delay(50);
      const abortedAt = Date.now();
      controller.abort();
      const error = await failure(pending);
      expect(Date.now() - abortedAt).toBeLessThan(1000);
      expect(error).toBeInstanceOf(LlmAbortError);
      await delay(50);
      expect(server.requests).toHaveLength(1);
    });

    it('sends nothing when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(
        collectLlmStream(openai().stream(messages, [], { signal: controller.signal })),
      ).rejects.toBeInstanceOf(LlmAbortError);
      await expect(anthropic().complete(messages, [], { signal: controller.signal })).rejects.toBeInstanceOf(
        LlmAbortError,
      );
      expect(server.requests).toHaveLength(0);
    });

    it('closes the upstream connection when the consumer stops iterating', async () => {
      server.enqueue({ text: 'one two three four five six', chunkSize: 4, hangAfterChunks: 5 });
      for await (const chunk of openai().stream(messages)) {
        if (chunk.type === 'token') break;
      }
      await server.waitForClientClose(0);
    });
  });

  describe('observer (metrics)', () => {
    type Observed =
      | { type: 'first'; seconds: number }
      | { type: 'ended'; outcome: LlmCallOutcome; seconds: number }
      | { type: 'error'; code: string; retried: boolean };
    let observed: Observed[];
    let labels: LlmCallLabels[];

    function observedOpenai(maxRetries = 2): LlmProvider {
      const observer: LlmCallObserver = {
        firstChunk: (call, seconds) => (labels.push(call), observed.push({ type: 'first', seconds })),
        ended: (call, outcome, seconds) => (labels.push(call), observed.push({ type: 'ended', outcome, seconds })),
        upstreamError: (call, code, retried) => (labels.push(call), observed.push({ type: 'error', code, retried })),
      };
      const inner = new OpenAiCompatibleProvider({
        providerName: 'deepseek',
        baseURL: server.openAiBaseUrl,
        apiKey: 'sk-test',
        model: 'deepseek-chat',
      });
      return new RetryingLlmProvider(inner, { maxRetries, backoff: FAST_BACKOFF, observer });
    }

    beforeEach(() => {
      observed = [];
      labels = [];
    });

    it('reports the first chunk once and the end of a streamed call, labelled with provider and model', async () => {
      server.enqueue({ text: 'Three small chunks', chunkSize: 6, delayMs: 15 });
      await collectLlmStream(observedOpenai().stream(messages));
      expect(observed.map((event) => event.type)).toEqual(['first', 'ended']);
      const [first, ended] = observed as unknown as [{ seconds: number }, { outcome: string; seconds: number }];
      expect(ended.outcome).toBe('ok');
      expect(first.seconds).toBeGreaterThan(0);
      expect(ended.seconds).toBeGreaterThanOrEqual(first.seconds + 0.03);
      expect(new Set(labels.map((call) => `${call.provider}/${call.model}`))).toEqual(
        new Set(['deepseek/deepseek-chat']),
      );
    });

    it('reports each upstream error (retried or not) and times the call from its first attempt', async () => {
      server.enqueue({ error: { status: 429, headers: { 'retry-after': '0.1' } } }, { text: 'Recovered.' });
      await collectLlmStream(observedOpenai().stream(messages));
      expect(observed).toEqual([
        { type: 'error', code: 'rate_limit', retried: true },
        { type: 'first', seconds: expect.any(Number) },
        { type: 'ended', outcome: 'ok', seconds: expect.any(Number) },
      ]);
      expect((observed[1] as { seconds: number }).seconds).toBeGreaterThanOrEqual(0.1);

      observed = [];
      server.enqueue({ error: { status: 500 } }, { error: { status: 500 } });
      await failure(observedOpenai(1).complete(messages));
      expect(observed).toEqual([
        { type: 'error', code: 'server_error', retried: true },
        { type: 'error', code: 'server_error', retried: false },
        { type: 'ended', outcome: 'error', seconds: expect.any(Number) },
      ]);
    });

    it('reports an aborted call, and a consumer that stops reading, as aborted (once)', async () => {
      server.enqueue({ text: 'A long answer that never finishes', chunkSize: 4, hangAfterChunks: 3 });
      const controller = new AbortController();
      await failure(
        (async () => {
          for await (const chunk of observedOpenai().stream(messages, [], { signal: controller.signal })) {
            if (chunk.type === 'token') controller.abort();
          }
        })(),
      );
      expect(observed.map((event) => (event.type === 'ended' ? event.outcome : event.type))).toEqual([
        'first',
        'aborted',
      ]);

      observed = [];
      server.enqueue({ text: 'one two three four five six', chunkSize: 4, hangAfterChunks: 5 });
      for await (const chunk of observedOpenai().stream(messages)) {
        if (chunk.type === 'token') break;
      }
      expect(observed.map((event) => (event.type === 'ended' ? event.outcome : event.type))).toEqual([
        'first',
        'aborted',
      ]);
      await server.waitForClientClose(1);
    });
  });
});

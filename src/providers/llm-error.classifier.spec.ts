import { APIError as AnthropicApiError } from '@anthropic-ai/sdk';
import { APIConnectionError, APIConnectionTimeoutError, APIError as OpenAiApiError } from 'openai';
import { collectLlmStream } from '../../test/support/collect-llm-stream';
import { ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { describeWithSharedFixtures } from '../../test/support/shared-fixtures';
import { AnthropicProvider } from './anthropic.provider';
import { classifyLLMError, LlmErrorClassifier, retryAfterMsFromError } from './llm-error.classifier';
import { IncompleteStreamError } from './incomplete-stream.error';
import { LLM_ERROR_MESSAGES } from '../errors/llm-error.messages';
import { LlmMessage } from '../conversation/llm-message';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import { TokenLimitError } from './token-limit.error';

const messages: LlmMessage[] = [{ role: 'user', content: 'hello' }];

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe(classifyLLMError.name, () => {
  describeWithSharedFixtures('with the recorded provider error bodies, through the real SDKs', () => {
    let server: ScriptedLlmServer;
    let openai: OpenAiCompatibleProvider;
    let anthropic: AnthropicProvider;

    beforeAll(async () => {
      server = await ScriptedLlmServer.start();
      openai = new OpenAiCompatibleProvider({
        providerName: 'openai',
        baseURL: server.openAiBaseUrl,
        apiKey: 'sk-test',
        model: 'gpt-4o',
      });
      anthropic = new AnthropicProvider({
        baseURL: server.anthropicBaseUrl,
        apiKey: 'sk-ant-test',
        model: 'claude-sonnet-4-20250514',
      });
    });
    afterAll(async () => {
      await server.close();
    });

    it.each([
      ['errors/openai-401-invalid-api-key.json', 'openai', 'auth_error', 401, false],
      ['errors/openai-429-rate-limit.json', 'openai', 'rate_limit', 429, true],
      ['errors/openai-400-context-length-exceeded.json', 'openai', 'context_length', 400, false],
      ['errors/anthropic-401-authentication-error.json', 'anthropic', 'auth_error', 401, false],
      ['errors/anthropic-429-rate-limit-error.json', 'anthropic', 'rate_limit', 429, true],
      ['errors/anthropic-529-overloaded-error.json', 'anthropic', 'server_error', 529, true],
      ['errors/anthropic-400-prompt-too-long.json', 'anthropic', 'context_length', 400, false],
    ] as const)('%s → %s/%s', async (fixture, sdk, code, status, retryable) => {
      server.enqueue({ fixture });
      const provider = sdk === 'openai' ? openai : anthropic;
      const error = await caught(provider.complete(messages));
      expect(classifyLLMError(error)).toEqual({
        code,
        retryable,
        statusCode: status,
        provider: sdk,
        userMessage: LLM_ERROR_MESSAGES[code].en,
        retryAfterMs: null,
      });
    });

    it('errors/groq-stream-error-event.sse → the status inside the stream error, not retryable', async () => {
      server.enqueue({ fixture: 'errors/groq-stream-error-event.sse' });
      const error = await caught(collectLlmStream(openai.stream(messages)));
      expect(classifyLLMError(error, 'fr', 'groq')).toEqual({
        code: 'internal',
        retryable: false,
        statusCode: 400,
        provider: 'groq',
        userMessage: LLM_ERROR_MESSAGES.internal.fr,
        retryAfterMs: null,
      });
    });

    it('reads Retry-After from the real response headers', async () => {
      server.enqueue({ fixture: 'errors/openai-429-rate-limit.json', headers: { 'retry-after': '3' } });
      expect(classifyLLMError(await caught(openai.complete(messages))).retryAfterMs).toBe(3000);
      server.enqueue({
        fixture: 'errors/anthropic-529-overloaded-error.json',
        headers: { 'retry-after-ms': '250', 'retry-after': '9' },
      });
      expect(classifyLLMError(await caught(anthropic.complete(messages))).retryAfterMs).toBe(250);
    });

    it('classifies a connection refused by nobody listening as network', async () => {
      const closed = await ScriptedLlmServer.start();
      const url = closed.openAiBaseUrl;
      await closed.close();
      const unreachable = new OpenAiCompatibleProvider({ providerName: 'ollama', baseURL: url, model: 'llama3.1' });
      const classified = classifyLLMError(await caught(unreachable.complete(messages)), 'en', 'ollama');
      expect(classified).toMatchObject({ code: 'network', retryable: true, statusCode: null, provider: 'ollama' });
    });
  });

  it('uses SDK classes and HTTP status before messages', () => {
    expect(classifyLLMError(new APIConnectionTimeoutError()).code).toBe('timeout');
    expect(
      classifyLLMError(new APIConnectionError({ cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) })).code,
    ).toBe('network');
    expect(
      classifyLLMError(new APIConnectionError({ cause: Object.assign(new Error('x'), { code: 'ETIMEDOUT' }) })).code,
    ).toBe('timeout');
    for (const status of [500, 502, 503, 504]) {
      expect(
        classifyLLMError(
          OpenAiApiError.generate(status, { error: { message: 'rate limit' } }, undefined, new Headers()),
        ),
      ).toMatchObject({
        code: 'server_error',
        retryable: true,
        statusCode: status,
      });
    }
    expect(
      classifyLLMError(OpenAiApiError.generate(403, { error: { message: 'nope' } }, undefined, new Headers())).code,
    ).toBe('auth_error');
    expect(classifyLLMError(OpenAiApiError.generate(408, undefined, 'timeout', new Headers())).code).toBe('timeout');
    expect(
      classifyLLMError(
        OpenAiApiError.generate(404, { error: { message: 'model not found' } }, undefined, new Headers()),
      ).code,
    ).toBe('internal');
  });

  it('reads the body code and type: quota, content filter, overloaded in a stream', () => {
    // An exhausted quota is no rate limit: the protocol makes every rate_limit retryable, and waiting will not help.
    const quota = OpenAiApiError.generate(
      429,
      { error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota' } },
      undefined,
      new Headers(),
    );
    expect(classifyLLMError(quota)).toMatchObject({ code: 'budget_exceeded', retryable: false, statusCode: 429 });
    const filtered = OpenAiApiError.generate(
      400,
      { error: { code: 'content_filter', message: 'The response was filtered' } },
      undefined,
      new Headers(),
    );
    expect(classifyLLMError(filtered).code).toBe('content_filter');
    const overloadedMidStream = new AnthropicApiError(
      undefined,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      undefined,
      undefined,
    );
    expect(classifyLLMError(overloadedMidStream)).toMatchObject({
      code: 'server_error',
      retryable: true,
      statusCode: null,
      provider: 'anthropic',
    });
  });

  it('falls back on socket codes, then message patterns', () => {
    const terminated = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classifyLLMError(terminated)).toMatchObject({ code: 'network', retryable: true });
    expect(classifyLLMError(Object.assign(new Error('connect'), { code: 'ENOTFOUND' })).code).toBe('network');
    expect(classifyLLMError(new IncompleteStreamError('deepseek')).code).toBe('network');
    expect(classifyLLMError(new Error('429 Too Many Requests')).code).toBe('rate_limit');
    expect(classifyLLMError(new Error('Request timed out')).code).toBe('timeout');
    expect(classifyLLMError(new Error('Your message was flagged by the content filter')).code).toBe('content_filter');
    expect(classifyLLMError(new Error("This model's maximum context length is 8192 tokens")).code).toBe(
      'context_length',
    );
    expect(classifyLLMError(new Error('Invalid API key')).code).toBe('auth_error');
    expect(classifyLLMError(new Error('something odd'))).toMatchObject({
      code: 'internal',
      retryable: false,
      provider: 'unknown',
    });
    expect(classifyLLMError('a string')).toMatchObject({ code: 'internal', statusCode: null });
    expect(classifyLLMError(null).code).toBe('internal');
    expect(classifyLLMError(new Error('deepseek API error')).provider).toBe('deepseek');
  });

  it('keeps the code of already-classified errors and localizes the message', () => {
    expect(classifyLLMError(new TokenLimitError('cost', 1, 1.2), 'fr')).toMatchObject({
      code: 'budget_exceeded',
      retryable: false,
      userMessage: LLM_ERROR_MESSAGES.budget_exceeded.fr,
    });
    expect(LLM_ERROR_MESSAGES.rate_limit.fr).not.toBe(LLM_ERROR_MESSAGES.rate_limit.en);
  });

  it('gives the thrown errors their localized text as the user message, which the transports show as is', () => {
    const upstream = new LlmErrorClassifier('fr').toAppError(
      Object.assign(new Error('429 Too Many Requests'), { status: 429 }),
    );
    expect(upstream).toMatchObject({
      code: 'rate_limit',
      retryable: true,
      userMessage: LLM_ERROR_MESSAGES.rate_limit.fr,
    });
    expect(new TokenLimitError('total_tokens', 10, 20, 'fr')).toMatchObject({
      code: 'budget_exceeded',
      retryable: false,
      userMessage: LLM_ERROR_MESSAGES.budget_exceeded.fr,
    });
  });
});

describe(retryAfterMsFromError.name, () => {
  it('reads seconds, HTTP dates and milliseconds; ignores garbage', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMsFromError({ headers: new Headers({ 'retry-after': '2.5' }) }, now)).toBe(2500);
    expect(
      retryAfterMsFromError({ headers: new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:04 GMT' }) }, now),
    ).toBe(4000);
    expect(
      retryAfterMsFromError({ headers: new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }) }, now),
    ).toBe(0);
    expect(retryAfterMsFromError({ headers: { 'Retry-After-Ms': '120' } }, now)).toBe(120);
    expect(retryAfterMsFromError({ headers: new Headers({ 'retry-after': 'soon' }) }, now)).toBeNull();
    expect(retryAfterMsFromError(new Error('no headers'))).toBeNull();
  });
});

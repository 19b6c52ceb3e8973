import { AiEventLogger } from './ai-event.logger';
import { LogEntry } from './log-entry';
import { configureLogging, resetLogSink, setLogSink } from './logger';

describe(AiEventLogger.name, () => {
  let entries: LogEntry[];
  const events = new AiEventLogger();

  beforeEach(() => {
    entries = [];
    setLogSink((entry) => entries.push(entry));
    configureLogging({ aiDebug: false, level: 'info' });
  });
  afterEach(() => {
    resetLogSink();
    configureLogging({ aiDebug: false, level: 'info' });
  });

  it('logs llm_error with provider, model, status and a bounded error message', () => {
    events.llmError({
      provider: 'deepseek',
      model: 'deepseek-chat',
      code: 'rate_limit',
      statusCode: 429,
      threadId: 'ai_1',
      error: new Error('x'.repeat(1000)),
    });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'error',
      event: 'llm_error',
      provider: 'deepseek',
      model: 'deepseek-chat',
      statusCode: 429,
      threadId: 'ai_1',
      errorName: 'Error',
    });
    expect((entries[0].errorMessage as string).length).toBe(300);
  });

  it('masks what an upstream error echoes of the request: the key, the user text, an e-mail address', () => {
    events.llmError({
      provider: 'openai',
      model: 'gpt-4o',
      code: 'bad_request',
      statusCode: 400,
      secrets: ['sk-live-0123456789abcdef'],
      error: new Error(
        "Invalid content 'Please write to jane.doe@example.com about the Lakers trade' (key sk-live-0123456789abcdef); contact ops@provider.example",
      ),
    });
    const message = String(entries[0].errorMessage);
    expect(message).not.toContain('jane.doe@example.com');
    expect(message).not.toContain('Lakers trade');
    expect(message).not.toContain('sk-live-0123456789abcdef');
    expect(message).not.toContain('ops@provider.example');
    expect(message).toContain("Invalid content '[59 characters]'");
    expect(message).toContain('[email]');
  });

  it('logs malformed_json with the length only, and the raw text (500 chars max) only under AI_DEBUG', () => {
    const raw = `{"secret plan": ${'y'.repeat(900)}`;
    events.malformedJson({ raw, context: 'tool:search_nodes', corrected: '{}' });
    expect(entries[0]).toMatchObject({
      level: 'warn',
      event: 'malformed_json',
      rawLength: raw.length,
      context: 'tool:search_nodes',
      corrected: '{}',
    });
    expect(entries[0]).not.toHaveProperty('raw');

    configureLogging({ aiDebug: true });
    events.malformedJson({ raw, context: 'tool:search_nodes' });
    expect(entries[1].raw).toBe(raw.slice(0, 500));
  });

  it('logs client_disconnect_abort and token_usage with their counts', () => {
    events.clientDisconnectAbort({ sessionId: 7, threadId: 'ai_2', tokensStreamed: 42 });
    events.tokenUsage({
      provider: 'openai',
      model: 'gpt-4o',
      promptTokens: 100,
      completionTokens: 20,
      cachedTokens: 50,
      costUsd: 0.0004,
    });
    expect(entries[0]).toMatchObject({
      level: 'warn',
      event: 'client_disconnect_abort',
      sessionId: 7,
      threadId: 'ai_2',
      tokensStreamed: 42,
    });
    expect(entries[1]).toMatchObject({
      level: 'info',
      event: 'token_usage',
      promptTokens: 100,
      completionTokens: 20,
      cachedTokens: 50,
      costUsd: 0.0004,
    });
  });

  it('emits the debug-mode events only with AI_DEBUG, whatever LOG_LEVEL says', () => {
    events.debug('llm_call_start', { provider: 'openai' });
    expect(entries).toEqual([]);
    configureLogging({ aiDebug: true, level: 'error' });
    events.debug('rag_retrieve', { graphKey: 'g', nodeCount: 3, cacheHit: false });
    expect(entries).toEqual([expect.objectContaining({ level: 'debug', event: 'rag_retrieve', nodeCount: 3 })]);
  });
});

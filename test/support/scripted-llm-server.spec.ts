import OpenAI from 'openai';
import { llmFixtureManifest, ScriptedLlmServer } from './scripted-llm-server';
import { describeWithSharedFixtures } from './shared-fixtures';

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe(ScriptedLlmServer.name, () => {
  let server: ScriptedLlmServer;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start({ embeddingDimension: 8 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('answers a clear 500 "script exhausted" in the endpoint error shape when no turn is queued', async () => {
    const openai = await post(`${server.openAiBaseUrl}/chat/completions`, { model: 'm', messages: [] });
    expect(openai.status).toBe(500);
    expect(JSON.parse(openai.text).error).toMatchObject({
      type: 'script_exhausted',
      message: expect.stringContaining('script exhausted'),
    });
    const anthropic = await post(`${server.url}/v1/messages`, { model: 'm', messages: [] });
    expect(JSON.parse(anthropic.text)).toMatchObject({ type: 'error', error: { type: 'script_exhausted' } });
    expect(server.requests.map((request) => request.exhausted)).toEqual([true, true]);
  });

  it('records method, path, parsed body and headers with secrets redacted', async () => {
    server.enqueue({ text: 'ok' });
    await post(
      `${server.openAiBaseUrl}/chat/completions`,
      { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      {
        authorization: 'Bearer sk-secret',
        'x-api-key': 'sk-secret',
        'x-trace': 'kept',
      },
    );
    expect(server.lastRequest).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/chat/completions',
      endpoint: 'openai.chat',
      stream: true,
      status: 200,
      completed: true,
      closedEarly: false,
      body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      headers: expect.objectContaining({ authorization: '[redacted]', 'x-api-key': '[redacted]', 'x-trace': 'kept' }),
    });
    expect(JSON.stringify(server.requests)).not.toContain('sk-secret');
  });

  it('lets a turn depend on the request', async () => {
    server.enqueue((request) => ({ text: `echo ${request.body.messages.length}` }));
    const answer = await post(`${server.openAiBaseUrl}/chat/completions`, {
      model: 'm',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
    });
    expect(JSON.parse(answer.text).choices[0].message.content).toBe('echo 2');
  });

  it('answers deterministic embeddings the OpenAI SDK decodes (base64 by default), or scripted ones', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.openAiBaseUrl, maxRetries: 0 });
    const first = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['fetch api', 'filter'] });
    const again = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'fetch api' });
    expect(first.data).toHaveLength(2);
    expect(first.data[0].embedding).toHaveLength(8);
    expect(Array.from(again.data[0].embedding)).toEqual(Array.from(first.data[0].embedding));
    expect(Array.from(first.data[0].embedding)).not.toEqual(Array.from(first.data[1].embedding));
    const norm = Math.hypot(...first.data[0].embedding);
    expect(norm).toBeCloseTo(1, 5);
    const sized = await client.embeddings.create({ model: 'm', input: 'x', dimensions: 3, encoding_format: 'float' });
    expect(sized.data[0].embedding).toHaveLength(3);

    server.enqueueEmbeddings({ vectors: [[1, 0, 0]] }, { error: { status: 429 } });
    expect(
      (await client.embeddings.create({ model: 'm', input: 'x', encoding_format: 'float' })).data[0].embedding,
    ).toEqual([1, 0, 0]);
    await expect(client.embeddings.create({ model: 'm', input: 'x' })).rejects.toMatchObject({ status: 429 });
    // Chat turns are not consumed by embeddings.
    expect(server.pendingTurns).toBe(0);
  });

  it('builds the environment that points the service at it', () => {
    expect(server.providerEnv('openai')).toEqual({
      LLM_PROVIDER: 'openai',
      OPENAI_API_KEY: 'sk-scripted-test',
      OPENAI_BASE_URL: server.openAiBaseUrl,
    });
    expect(server.providerEnv('anthropic', 'claude-x')).toEqual({
      LLM_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-scripted-test',
      ANTHROPIC_BASE_URL: server.url,
      LLM_MODEL: 'claude-x',
    });
    expect(server.providerEnv('openai-compatible')).toMatchObject({
      LLM_BASE_URL: server.openAiBaseUrl,
      LLM_MODEL: 'scripted-model',
    });
  });

  it('delays chunks, and records a server-side cut as such, not as a client close', async () => {
    server.enqueue({ text: 'abcdefgh', chunkSize: 2, delayMs: 15, disconnectAfterChunks: 2 });
    const startedAt = Date.now();
    await expect(
      post(`${server.openAiBaseUrl}/chat/completions`, { model: 'm', stream: true, messages: [] }),
    ).rejects.toThrow();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(40);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.lastRequest).toMatchObject({ chunksSent: 2, completed: false, closedEarly: false });
  });

  describeWithSharedFixtures('fixture replay', () => {
    it('replays a recorded body byte for byte with the manifest status and content type', async () => {
      const entry = llmFixtureManifest().find(
        (candidate) => candidate.file === 'errors/anthropic-529-overloaded-error.json',
      )!;
      server.enqueue({ fixture: entry.file, headers: { 'retry-after': '2' } });
      const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(529);
      expect(response.headers.get('content-type')).toBe(entry.content_type);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(await response.text()).toBe('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    });

    it('replays the recorded embeddings through the OpenAI SDK', async () => {
      const entry = llmFixtureManifest().find(
        (candidate) => candidate.file === 'openai/embeddings-text-embedding-3-small.json',
      )!;
      server.enqueueEmbeddings({ fixture: entry.file });
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.openAiBaseUrl, maxRetries: 0 });
      const answer = await client.embeddings.create({
        model: 'text-embedding-3-small',
        input: ['sunny day at the beach', 'rainy day in the city'],
        encoding_format: 'float',
      });
      expect(answer.model).toBe(entry.expected.model);
      expect(answer.data.map((item) => item.embedding)).toEqual(entry.expected.vectors);
      expect(answer.usage).toEqual(entry.expected.usage);
    });
  });
});

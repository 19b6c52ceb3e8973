import { collectLlmStream } from '../../test/support/collect-llm-stream';
import { llmFixtureManifest, ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { describeWithSharedFixtures } from '../../test/support/shared-fixtures';
import { IncompleteStreamError } from './incomplete-stream.error';
import { LlmMessage, LlmToolDefinition } from '../conversation/llm-message';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

const messages: LlmMessage[] = [
  { role: 'system', content: 'You are a graph assistant.', cacheBreakpoint: true },
  { role: 'user', content: 'What does the graph do?' },
];

const tools: LlmToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'search_nodes',
      description: 'Search nodes',
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    },
  },
];

/** The manifest's OpenAI usage in our terms. */
function expectedUsage(usage: any) {
  if (!usage) return null;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens || usage.prompt_cache_hit_tokens || 0,
  };
}

describe(OpenAiCompatibleProvider.name, () => {
  let server: ScriptedLlmServer;
  let provider: OpenAiCompatibleProvider;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    provider = new OpenAiCompatibleProvider({
      providerName: 'openai',
      baseURL: server.openAiBaseUrl,
      apiKey: 'sk-test',
      model: 'gpt-4o',
    });
  });

  describeWithSharedFixtures('replaying the recorded provider streams', () => {
    const streams = llmFixtureManifest().filter(
      (entry) => entry.stream && entry.endpoint.includes('chat/completions') && !entry.file.startsWith('errors/'),
    );

    it.each(streams.map((entry) => [entry.file, entry] as const))(
      '%s gives the manifest text, tool calls and usage',
      async (file, entry) => {
        server.enqueue({ fixture: file });
        const result = await collectLlmStream(provider.stream(messages, tools));
        const expected = entry.expected;
        expect(result.text).toBe(expected.text ?? '');
        expect(result.toolCalls).toEqual(
          (expected.tool_calls ?? []).map((call: any) => ({
            index: call.index,
            id: call.id,
            name: call.name,
            arguments: call.arguments,
          })),
        );
        expect(result.toolCallStarts.map((start) => start.id)).toEqual(
          (expected.tool_calls ?? []).map((call: any) => call.id),
        );
        expect(result.usage).toEqual(expectedUsage(expected.usage));
        expect(result.finishReason).toBe(expected.finish_reason);
        // Reasoning is never part of the answer.
        if (expected.reasoning) expect(result.text).not.toContain(expected.reasoning.slice(0, 20));
        expect(result.chunks[result.chunks.length - 1].type).toBe('done');
      },
    );

    const completions = llmFixtureManifest().filter(
      (entry) => !entry.stream && entry.endpoint.includes('chat/completions') && !entry.file.startsWith('errors/'),
    );

    it.each(completions.map((entry) => [entry.file, entry] as const))('complete() parses %s', async (file, entry) => {
      server.enqueue({ fixture: file });
      const completion = await provider.complete(messages, tools);
      const expected = entry.expected;
      expect(completion.message.content).toBe(expected.text);
      expect(completion.message.tool_calls ?? null).toEqual(
        expected.tool_calls?.map((call: any) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })) ?? null,
      );
      expect(completion.usage).toEqual(expectedUsage(expected.usage));
      expect(completion.finishReason).toBe(expected.finish_reason);
    });

    it('throws the mid-stream `event: error` of a compatible server as a provider error', async () => {
      server.enqueue({ fixture: 'errors/groq-stream-error-event.sse' });
      await expect(collectLlmStream(provider.stream(messages, tools))).rejects.toMatchObject({
        status: undefined,
        error: expect.objectContaining({ code: 'tool_use_failed', status_code: 400 }),
      });
    });
  });

  it('sends the OpenAI request shape: stream_options.include_usage, tools, our markers stripped, the key as bearer', async () => {
    server.enqueue({ text: 'ok' });
    await collectLlmStream(
      provider.stream(messages, tools, { maxTokens: 300, temperature: 0.2, model: 'gpt-4o-mini' }),
    );
    const request = server.requests[0];
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('[redacted]');
    expect(request.body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
      temperature: 0.2,
      tools: [{ type: 'function', function: { name: 'search_nodes' } }],
    });
    expect(request.body.messages[0]).toEqual({ role: 'system', content: 'You are a graph assistant.' });
  });

  it('sends a body with characters beyond Latin-1 as its UTF-8 bytes, with its length (undiciRequestFetch)', async () => {
    server.enqueue({ text: 'ok' });
    const content = '[SYSTEM] 2 nodes added\n  ✓ create_node log-errors: café 😀';
    await collectLlmStream(provider.stream([...messages, { role: 'user', content }]));
    const request = server.requests[0];
    expect(request.body.messages[2]).toEqual({ role: 'user', content });
    expect(request.headers['transfer-encoding']).toBeUndefined();
    expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(request.body)));
  });

  it('does not count the time its consumer holds a chunk as upstream silence (a stream giving way to setups)', async () => {
    const patient = new OpenAiCompatibleProvider({
      providerName: 'openai',
      baseURL: server.openAiBaseUrl,
      apiKey: 'sk-test',
      model: 'gpt-4o',
      streamIdleTimeoutMs: 50,
    });
    server.enqueue({ text: 'The graph fetches NBA stats.', chunkSize: 3 });
    let text = '';
    let held = false;
    for await (const chunk of patient.stream(messages)) {
      if (chunk.type !== 'token') continue;
      text += chunk.token;
      if (!held) {
        held = true;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    expect(text).toBe('The graph fetches NBA stats.');
  });

  it('streams text in order and reports cached tokens', async () => {
    server.enqueue({
      text: 'The graph fetches NBA stats.',
      chunkSize: 3,
      usage: { prompt: 1200, completion: 9, cached: 1024 },
    });
    const result = await collectLlmStream(provider.stream(messages));
    expect(result.text).toBe('The graph fetches NBA stats.');
    expect(result.tokenCount).toBe(Math.ceil('The graph fetches NBA stats.'.length / 3));
    expect(result.usage).toEqual({ promptTokens: 1200, completionTokens: 9, cachedTokens: 1024, totalTokens: 1209 });
    expect(result.chunks.slice(-2).map((chunk) => chunk.type)).toEqual(['usage', 'done']);
  });

  it('assembles fragmented parallel tool calls by index, even interleaved', async () => {
    server.enqueue({
      text: 'Let me look.',
      interleaveToolCalls: true,
      toolCalls: [
        { id: 'call_a', name: 'search_nodes', arguments: { query: 'fetch api', limit: 5 }, fragments: 7 },
        {
          id: 'call_b',
          name: 'read_node_detail',
          arguments: '{"nodeKey":"root"}',
          fragments: ['{"node', 'Key":', '"root"}'],
        },
      ],
    });
    const result = await collectLlmStream(provider.stream(messages, tools));
    expect(result.text).toBe('Let me look.');
    expect(result.toolCallStarts).toEqual([
      { index: 0, id: 'call_a', name: 'search_nodes' },
      { index: 1, id: 'call_b', name: 'read_node_detail' },
    ]);
    expect(result.toolCalls).toEqual([
      { index: 0, id: 'call_a', name: 'search_nodes', arguments: '{"query":"fetch api","limit":5}' },
      { index: 1, id: 'call_b', name: 'read_node_detail', arguments: '{"nodeKey":"root"}' },
    ]);
    expect(result.finishReason).toBe('tool_calls');
    // Every start comes before every done.
    const types = result.chunks.map((chunk) => chunk.type);
    expect(types.lastIndexOf('tool_call_start')).toBeLessThan(types.indexOf('tool_call_done'));
  });

  it('generates stable ids when the server omits them, the same in start and done', async () => {
    server.enqueue({
      omitToolCallIds: true,
      toolCalls: [
        { name: 'search_nodes', arguments: { query: 'x' } },
        { name: 'search_nodes', arguments: {} },
      ],
    });
    const result = await collectLlmStream(provider.stream(messages, tools));
    const ids = result.toolCalls.map((call) => call.id);
    expect(ids[0]).toMatch(/^call_/);
    expect(new Set(ids).size).toBe(2);
    expect(result.toolCallStarts.map((start) => start.id)).toEqual(ids);
  });

  it('accepts usage on the finish chunk, reasoning_content and comment lines', async () => {
    server.enqueue({
      reasoning: 'thinking hard',
      text: 'Answer.',
      usagePlacement: 'finish-chunk',
      comments: true,
      usage: { prompt: 30, completion: 8, cached: 0 },
    });
    const result = await collectLlmStream(provider.stream(messages));
    expect(result.text).toBe('Answer.');
    expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 8, cachedTokens: 0, totalTokens: 38 });
  });

  it('throws IncompleteStreamError when the response ends cleanly before the finish chunk', async () => {
    server.enqueue({ text: 'a partial answer', endAfterChunks: 3 });
    const chunks: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of provider.stream(messages)) if (chunk.type === 'token') chunks.push(chunk.token);
      })(),
    ).rejects.toBeInstanceOf(IncompleteStreamError);
    expect(chunks.join('')).toBe('a partia');
  });

  it('complete() returns text, tool calls and usage from a JSON answer', async () => {
    server.enqueue({
      text: 'Done.',
      toolCalls: [{ id: 'call_1', name: 'search_nodes', arguments: { query: 'a' } }],
      usage: { prompt: 10, completion: 4, cached: 2 },
    });
    const completion = await provider.complete(messages, tools);
    expect(server.requests[0].body.stream).toBe(false);
    expect(completion).toEqual({
      message: {
        role: 'assistant',
        content: 'Done.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'search_nodes', arguments: '{"query":"a"}' } },
        ],
      },
      usage: { promptTokens: 10, completionTokens: 4, cachedTokens: 2, totalTokens: 14 },
      model: 'gpt-4o',
      finishReason: 'tool_calls',
    });
  });
});

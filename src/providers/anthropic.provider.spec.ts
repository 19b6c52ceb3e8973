import { collectLlmStream } from '../../test/support/collect-llm-stream';
import { llmFixtureManifest, ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { describeWithSharedFixtures } from '../../test/support/shared-fixtures';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, AnthropicProvider } from './anthropic.provider';
import { IncompleteStreamError } from './incomplete-stream.error';
import { LlmMessage, LlmToolDefinition } from '../conversation/llm-message';

const messages: LlmMessage[] = [
  { role: 'system', content: 'You are a graph assistant.', cacheBreakpoint: true },
  { role: 'system', content: 'Graph context (TOON): ...' },
  { role: 'user', content: 'What is the weather?' },
];

const tools: LlmToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { location: { type: 'string' } } },
    },
  },
];

/** The manifest's Anthropic usage in our terms: the prompt includes cache reads and writes. */
function expectedUsage(usage: any) {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const prompt = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + cacheRead;
  return {
    promptTokens: prompt,
    completionTokens: usage.output_tokens,
    cachedTokens: cacheRead,
    totalTokens: prompt + usage.output_tokens,
  };
}

const STOP_REASONS: Record<string, string> = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' };

describe(AnthropicProvider.name, () => {
  let server: ScriptedLlmServer;
  let provider: AnthropicProvider;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    provider = new AnthropicProvider({
      baseURL: server.anthropicBaseUrl,
      apiKey: 'sk-ant-test',
      model: 'claude-sonnet-4-20250514',
    });
  });

  describeWithSharedFixtures('replaying the recorded Anthropic responses', () => {
    const anthropic = llmFixtureManifest().filter((entry) => entry.file.startsWith('anthropic/'));

    it.each(anthropic.filter((entry) => entry.stream).map((entry) => [entry.file, entry] as const))(
      '%s streams the manifest text, tool calls and usage',
      async (file, entry) => {
        server.enqueue({ fixture: file });
        const result = await collectLlmStream(provider.stream(messages, tools));
        const blocks: any[] = entry.expected.content;
        expect(result.text).toBe(
          blocks
            .filter((block) => block.type === 'text')
            .map((block) => block.text)
            .join(''),
        );
        const toolUses = blocks.filter((block) => block.type === 'tool_use');
        expect(result.toolCallStarts).toEqual(
          toolUses.map((block, index) => ({ index, id: block.id, name: block.name })),
        );
        expect(result.toolCalls).toEqual(
          toolUses.map((block, index) => ({
            index,
            id: block.id,
            name: block.name,
            arguments: block.partial_json_concat,
          })),
        );
        for (const call of result.toolCalls) expect(JSON.parse(call.arguments)).toEqual(toolUses[call.index].input);
        expect(result.usage).toEqual(expectedUsage(entry.expected.usage_merged_message_start_then_message_delta));
        expect(result.finishReason).toBe(STOP_REASONS[entry.expected.stop_reason]);
      },
    );

    it.each(anthropic.filter((entry) => !entry.stream).map((entry) => [entry.file, entry] as const))(
      'complete() parses %s',
      async (file, entry) => {
        server.enqueue({ fixture: file });
        const completion = await provider.complete(messages, tools);
        const blocks: any[] = entry.expected.content;
        expect(completion.message.content).toBe(
          blocks
            .filter((block) => block.type === 'text')
            .map((block) => block.text)
            .join(''),
        );
        expect(completion.message.tool_calls ?? []).toEqual(
          blocks
            .filter((block) => block.type === 'tool_use')
            .map((block) => ({
              id: block.id,
              type: 'function',
              function: { name: block.name, arguments: JSON.stringify(block.input) },
            })),
        );
        expect(completion.usage).toEqual(expectedUsage(entry.expected.usage));
        expect(completion.finishReason).toBe(STOP_REASONS[entry.expected.stop_reason]);
      },
    );
  });

  it('sends system blocks with the cache breakpoint, converted tools, max_tokens 4096 and the key', async () => {
    server.enqueue({ text: 'ok' });
    await collectLlmStream(provider.stream(messages, tools));
    const request = server.requests[0];
    expect(request.path).toBe('/v1/messages');
    expect(request.headers.authorization).toBe('[redacted]'); // SDK 1.12 sends the key as a bearer token
    expect(request.headers['anthropic-version']).toBeDefined();
    expect(request.body).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      stream: true,
      system: [
        { type: 'text', text: 'You are a graph assistant.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Graph context (TOON): ...' },
      ],
      messages: [{ role: 'user', content: 'What is the weather?' }],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          input_schema: { type: 'object', properties: { location: { type: 'string' } } },
        },
      ],
    });
  });

  it('sends a body with characters beyond Latin-1 as its UTF-8 bytes, with its length (undiciRequestFetch)', async () => {
    server.enqueue({ text: 'ok' });
    const content = '[SYSTEM] 2 nodes added\n  ✓ create_node log-errors: café 😀';
    await collectLlmStream(provider.stream([{ role: 'user', content }]));
    const request = server.requests[0];
    expect(request.body.messages).toEqual([{ role: 'user', content }]);
    expect(request.headers['transfer-encoding']).toBeUndefined();
    expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(request.body)));
  });

  it('omits an empty tools list and honours maxTokens and model overrides', async () => {
    server.enqueue({ text: 'ok' });
    await provider.complete([{ role: 'user', content: 'hi' }], [], {
      maxTokens: 100,
      model: 'claude-3-5-haiku-latest',
    });
    expect(server.requests[0].body).toEqual({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 100,
      stream: false,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('streams text, parallel fragmented tool_use blocks and cache-read usage', async () => {
    server.enqueue({
      text: 'Checking both.',
      toolCalls: [
        { id: 'toolu_a', name: 'get_weather', arguments: { location: 'Paris' }, fragments: 5 },
        { id: 'toolu_b', name: 'get_time', arguments: { timezone: 'Europe/Paris' }, fragments: 2 },
      ],
      usage: { prompt: 2000, completion: 40, cached: 1800 },
    });
    const result = await collectLlmStream(provider.stream(messages, tools));
    expect(result.text).toBe('Checking both.');
    expect(result.toolCalls).toEqual([
      { index: 0, id: 'toolu_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { index: 1, id: 'toolu_b', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
    ]);
    expect(result.usage).toEqual({ promptTokens: 2000, completionTokens: 40, cachedTokens: 1800, totalTokens: 2040 });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.chunks.slice(-2).map((chunk) => chunk.type)).toEqual(['usage', 'done']);
  });

  it('throws a mid-stream error event as a provider error and a truncated stream as IncompleteStreamError', async () => {
    server.enqueue({ text: 'Hello', streamError: { type: 'overloaded_error', message: 'Overloaded' } });
    await expect(collectLlmStream(provider.stream(messages))).rejects.toMatchObject({ type: 'overloaded_error' });
    server.enqueue({ text: 'Hello world', endAfterChunks: 4 });
    await expect(collectLlmStream(provider.stream(messages))).rejects.toBeInstanceOf(IncompleteStreamError);
  });
});

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { LlmErrorClassifier } from '../../../src/providers/llm-error.classifier';
import { ScriptedLlmServer } from '../scripted-llm-server';

const LONG = 'stable instructions and tool documentation. '.repeat(200); // ~9,000 characters, ~2,250 tokens

describe('ScriptedLlmServer prompt cache and context window', () => {
  let server: ScriptedLlmServer;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    server = await ScriptedLlmServer.start({ promptCache: true, contextLength: 4000 });
    openai = new OpenAI({ apiKey: 'sk-test', baseURL: server.openAiBaseUrl, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: server.anthropicBaseUrl, maxRetries: 0 });
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());

  it('counts, as OpenAI does, the longest prefix already seen once it reaches 1,024 tokens, in steps of 128', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' });
    const ask = (question: string) =>
      openai.chat.completions.create({
        model: 'm',
        messages: [
          { role: 'system', content: LONG },
          { role: 'user', content: question },
        ],
      });
    const first = await ask('first question');
    const second = await ask('second question');
    const short = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(server.requests[1].prompt!.tokens);
    expect(server.requests[1].prompt!.sharedPrefixChars).toBeGreaterThan(LONG.length);
    expect(short.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it('counts, as Anthropic does, what an earlier request wrote at a cache_control breakpoint', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' });
    const ask = (system: string, question: string) =>
      anthropic.messages.create({
        model: 'm',
        max_tokens: 10,
        system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: question }],
      });
    const first = await ask(LONG, 'first question');
    const second = await ask(LONG, 'second question');
    const other = await ask(`${LONG} changed`, 'second question');
    expect(first.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: expect.any(Number) });
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1024);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(other.usage.cache_read_input_tokens).toBe(0);
  });

  it('finds, as Anthropic does, an earlier breakpoint’s prefix within the 20 blocks before a later breakpoint', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' });
    const system = [{ type: 'text' as const, text: LONG, cache_control: { type: 'ephemeral' as const } }];
    const first = await anthropic.messages.create({
      model: 'm',
      max_tokens: 10,
      system,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Q1 '.repeat(400), cache_control: { type: 'ephemeral' } }] },
      ],
    });
    const second = await anthropic.messages.create({
      model: 'm',
      max_tokens: 10,
      system,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Q1 '.repeat(400) }] },
        { role: 'assistant', content: 'A1' },
        { role: 'user', content: [{ type: 'text', text: 'Q2', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    // The first request wrote the prefix up to Q1; the second, whose breakpoint is two blocks further, reads it.
    const throughQ1 = (first.usage.cache_creation_input_tokens ?? 0) + (first.usage.cache_read_input_tokens ?? 0);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(Math.floor(LONG.length / 4));
    expect(second.usage.cache_read_input_tokens).toBe(throughQ1);
  });

  it('refuses a prompt larger than the context window with each provider’s error, which the service classifies as context_length', async () => {
    const huge = 'x'.repeat(20_000);
    const classifier = new LlmErrorClassifier('en');
    const openAiError = await openai.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: huge }] })
      .catch((error: unknown) => error);
    expect(openAiError).toMatchObject({ status: 400, code: 'context_length_exceeded' });
    expect(classifier.classify(openAiError).code).toBe('context_length');
    const anthropicError = await anthropic.messages
      .create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: huge }] })
      .catch((error: unknown) => error);
    expect(anthropicError).toMatchObject({ status: 400 });
    expect(String((anthropicError as Error).message)).toMatch(/prompt is too long: \d+ tokens > 4000 maximum/);
    expect(classifier.classify(anthropicError).code).toBe('context_length');
    expect(server.pendingTurns).toBe(0);
    expect(server.requests.every((request) => request.prompt === null)).toBe(true);
  });
});

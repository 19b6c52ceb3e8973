import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { LlmErrorClassifier } from '../../../src/providers/llm-error.classifier';
import { ScriptedLlmServer } from '../scripted-llm-server';
import { PromptCacheSimulator } from './prompt-cache';

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
    const ask = (question: string) => openai.chat.completions.create({ model: 'm', messages: [{ role: 'system', content: LONG }, { role: 'user', content: question }] });
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

  it('finds the longest prefix shared with any earlier prompt, not only the last one, and counts a repeated prompt whole', () => {
    const simulator = new PromptCacheSimulator();
    const body = (system: string, question: string) => ({ messages: [{ role: 'system', content: system }, { role: 'user', content: question }] });
    const other = 'other instructions. '.repeat(400);
    simulator.observe('openai.chat', body(LONG, 'first'));
    simulator.observe('openai.chat', body(other, 'second'));
    simulator.observe('openai.chat', body('zzz', 'third'));
    const back = simulator.observe('openai.chat', body(LONG, 'fourth'));
    expect(back.cachedTokens).toBeGreaterThanOrEqual(Math.floor(LONG.length / 4 / 128) * 128);
    expect(back.sharedPrefixChars).toBeLessThan(100); // with the previous prompt only: the JSON of the role
    const again = simulator.observe('openai.chat', body(LONG, 'fourth'));
    expect(again.cachedTokens).toBe(Math.floor(again.tokens / 128) * 128);
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

  it('refuses a prompt larger than the context window with each provider’s error, which the service classifies as context_length', async () => {
    const huge = 'x'.repeat(20_000);
    const classifier = new LlmErrorClassifier('en');
    const openAiError = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: huge }] }).catch((error: unknown) => error);
    expect(openAiError).toMatchObject({ status: 400, code: 'context_length_exceeded' });
    expect(classifier.classify(openAiError).code).toBe('context_length');
    const anthropicError = await anthropic.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: huge }] }).catch((error: unknown) => error);
    expect(anthropicError).toMatchObject({ status: 400 });
    expect(String((anthropicError as Error).message)).toMatch(/prompt is too long: \d+ tokens > 4000 maximum/);
    expect(classifier.classify(anthropicError).code).toBe('context_length');
    expect(server.pendingTurns).toBe(0);
    expect(server.requests.every((request) => request.prompt === null)).toBe(true);
  });
});

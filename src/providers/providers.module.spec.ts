import { Test } from '@nestjs/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { collectLlmStream } from '../../test/support/collect-llm-stream';
import { ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { AppConfigModule } from '../config/app-config.module';
import { ConfigValidationError } from '../config/config-validation.error';
import { loadAppConfig } from '../config/load-app-config';
import { defaultRegistryPath, ProviderRegistry } from '../config/provider-registry';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { LlmErrorClassifier } from './llm-error.classifier';
import { LlmProvider } from './llm-provider';
import { createLlmProvider } from './llm-provider.factory';
import { selectLlmProvider } from './llm-provider.selector';
import { LLM_PROVIDER } from './llm-provider.token';
import { OfflineLlmProvider } from './offline.provider';
import { PROVIDER_REGISTRY } from './provider-registry.token';
import { ProvidersModule } from './providers.module';
import { RetryingLlmProvider } from './retrying-llm.provider';
import { TokenTracker } from './token.tracker';

async function compile(env: Record<string, string>, registry?: ProviderRegistry) {
  const builder = Test.createTestingModule({ imports: [AppConfigModule.forRoot(loadAppConfig(env)), ProvidersModule] });
  if (registry) builder.overrideProvider(PROVIDER_REGISTRY).useValue(registry);
  return builder.compile();
}

describe(ProvidersModule.name, () => {
  let server: ScriptedLlmServer;
  let logs: LogEntry[];

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  it('provides the detected provider, pointed at OPENAI_BASE_URL, with one start-up line that never shows the key', async () => {
    const moduleRef = await compile({
      OPENAI_API_KEY: 'sk-very-secret-key',
      OPENAI_BASE_URL: server.openAiBaseUrl,
      AI_MAX_RETRIES: '1',
    });
    const provider = moduleRef.get<LlmProvider>(LLM_PROVIDER);
    expect(provider).toBeInstanceOf(RetryingLlmProvider);
    expect(provider).toMatchObject({ providerName: 'openai', model: 'gpt-4o', offline: false });

    server.enqueue({ error: { status: 500 } }, { text: 'Hi from the scripted server.' });
    expect((await collectLlmStream(provider.stream([{ role: 'user', content: 'hi' }]))).text).toBe(
      'Hi from the scripted server.',
    );
    expect(server.requests.map((request) => request.body.model)).toEqual(['gpt-4o', 'gpt-4o']);

    const selected = logs.filter((log) => log.event === 'llm_provider_selected');
    expect(selected).toEqual([
      expect.objectContaining({
        provider: 'openai',
        model: 'gpt-4o',
        baseUrlHost: `127.0.0.1:${server.port}`,
        source: 'detected',
        detectedBy: 'OPENAI_API_KEY',
      }),
    ]);
    expect(JSON.stringify(logs)).not.toContain('sk-very-secret-key');
    await moduleRef.close();
  });

  it('falls back on the offline provider and exports the tracker, classifier and registry', async () => {
    const moduleRef = await compile({ AI_LOCALE: 'fr', AI_MAX_COST_USD: '1' });
    expect(moduleRef.get(LLM_PROVIDER)).toBeInstanceOf(OfflineLlmProvider);
    expect(logs.find((log) => log.event === 'llm_provider_selected')).toMatchObject({
      provider: 'offline',
      offline: true,
      source: 'default',
    });
    expect(moduleRef.get(LlmErrorClassifier).locale).toBe('fr');
    expect(moduleRef.get<ProviderRegistry>(PROVIDER_REGISTRY).get('deepseek')).toBeDefined();
    const tracker = moduleRef.get(TokenTracker);
    const entry = tracker.record(
      { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 0, totalTokens: 1_000_000 },
      { provider: 'openai', model: 'gpt-4o' },
    );
    expect(entry.costUsd).toBeCloseTo(2.5, 10);
    expect(() => tracker.assertWithinBudget()).toThrow("Le budget d'utilisation de l'IA est atteint.");
    expect(logs.find((log) => log.event === 'token_limit_exceeded')).toMatchObject({ kind: 'cost', limit: 1 });
    await moduleRef.close();
  });

  it('refuses to start on an unknown LLM_PROVIDER or a missing key', async () => {
    await expect(compile({ LLM_PROVIDER: 'nope' })).rejects.toBeInstanceOf(ConfigValidationError);
    await expect(compile({ LLM_PROVIDER: 'deepseek' })).rejects.toThrow(
      /DEEPSEEK_API_KEY: required for provider "deepseek"/,
    );
  });

  it('refuses to start when AI_MAX_COST_USD is set and the selected model has no price (it would count $0 a call)', async () => {
    const generic = server.providerEnv('openai-compatible', 'my-finetune');
    await expect(compile({ ...generic, AI_MAX_COST_USD: '5' })).rejects.toThrow(
      /AI_MAX_COST_USD: The model "my-finetune" of provider "openai-compatible" has no known price/,
    );
    // A model the table knows, behind the same generic entry, is priced: the budget can work.
    const known = await compile({ ...server.providerEnv('openai-compatible', 'gpt-4o'), AI_MAX_COST_USD: '5' });
    expect(known.get<LlmProvider>(LLM_PROVIDER).pricing).toEqual({
      inputPerMillion: 2.5,
      inputCacheHitPerMillion: 1.25,
      outputPerMillion: 10,
    });
    await known.close();
    // Without a cost budget the unpriced model runs (its calls are logged token_cost_unknown).
    await (await compile(generic)).close();
  });

  it('points an Anthropic selection at ANTHROPIC_BASE_URL', async () => {
    const moduleRef = await compile(server.providerEnv('anthropic'));
    server.enqueue({ text: 'Bonjour', toolCalls: [{ name: 'search_nodes', arguments: { query: 'x' } }] });
    const result = await collectLlmStream(
      moduleRef.get<LlmProvider>(LLM_PROVIDER).stream([{ role: 'user', content: 'hi' }]),
    );
    expect(result).toMatchObject({ text: 'Bonjour', finishReason: 'tool_calls' });
    expect(server.requests[0].path).toBe('/v1/messages');
    await moduleRef.close();
  });

  it('adds an OpenAI-compatible provider with one registry entry, used end to end', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'registry-'));
    try {
      const document = JSON.parse(readFileSync(defaultRegistryPath(), 'utf8'));
      document.providers.mistral = {
        type: 'openai-compatible',
        baseURL: 'https://api.mistral.ai/v1',
        defaultModel: 'mistral-small-latest',
        apiKeyEnvVar: 'MISTRAL_API_KEY',
        supportsEmbedding: true,
        contextWindow: 128000,
        pricing: { inputPerMillion: 0.1, inputCacheHitPerMillion: 0.1, outputPerMillion: 0.3 },
      };
      const file = path.join(dir, 'providers.json');
      writeFileSync(file, JSON.stringify(document));
      const registry = ProviderRegistry.load(file);
      const env = { LLM_PROVIDER: 'mistral', MISTRAL_API_KEY: 'sk-mistral', MISTRAL_BASE_URL: server.openAiBaseUrl };

      // Pure path: selection → factory → wire.
      const provider = createLlmProvider(selectLlmProvider(loadAppConfig(env), registry), { maxRetries: 0 });
      server.enqueue({ text: 'Bonjour from Mistral.', usage: { prompt: 100, completion: 5 } });
      const result = await collectLlmStream(provider.stream([{ role: 'user', content: 'hi' }]));
      expect(result.text).toBe('Bonjour from Mistral.');
      expect(server.requests[0]).toMatchObject({
        path: '/v1/chat/completions',
        body: expect.objectContaining({ model: 'mistral-small-latest' }),
      });

      // Through the module, pricing included.
      const moduleRef = await compile(env, registry);
      expect(moduleRef.get<LlmProvider>(LLM_PROVIDER)).toMatchObject({
        providerName: 'mistral',
        model: 'mistral-small-latest',
      });
      const entry = moduleRef
        .get(TokenTracker)
        .record(result.usage!, { provider: 'mistral', model: 'mistral-small-latest' });
      expect(entry.costUsd).toBeCloseTo((100 * 0.1 + 5 * 0.3) / 1e6, 12);
      await moduleRef.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConfigValidationError } from './config-validation.error';
import { baseUrlOverrideVariable, defaultRegistryPath, ProviderRegistry } from './provider-registry';

const validEntry = {
  type: 'openai-compatible',
  baseURL: 'https://api.example.com/v1',
  defaultModel: 'example-1',
  apiKeyEnvVar: 'EXAMPLE_API_KEY',
  supportsEmbedding: false,
  contextWindow: 32000,
  pricing: { inputPerMillion: 1, inputCacheHitPerMillion: 0.1, outputPerMillion: 2 },
};

function problemsOf(document: unknown): string[] {
  try {
    ProviderRegistry.fromJson(document, 'test.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigValidationError);
    return (error as ConfigValidationError).problems;
  }
  throw new Error('expected the registry to be refused');
}

describe(ProviderRegistry.name, () => {
  it('loads the repository registry with every documented provider', () => {
    const registry = ProviderRegistry.load(defaultRegistryPath());
    expect(registry.names().sort()).toEqual([
      'anthropic',
      'deepseek',
      'ollama',
      'openai',
      'openai-compatible',
      'openai-mini',
      'qwen',
    ]);
    expect(registry.get('anthropic')).toMatchObject({
      type: 'anthropic',
      apiKeyEnvVar: 'ANTHROPIC_API_KEY',
      defaultModel: 'claude-sonnet-4-20250514',
    });
    expect(registry.get('ollama')).toMatchObject({ apiKeyEnvVar: null, baseURL: 'http://localhost:11434/v1' });
    expect(registry.get('openai-compatible')).toMatchObject({
      baseURL: null,
      baseUrlEnvVar: 'LLM_BASE_URL',
      apiKeyEnvVar: 'LLM_API_KEY',
      defaultModel: null,
    });
    // The generic entry may be any endpoint: no price of its own (the model table or a configuration prices it).
    expect(registry.get('openai-compatible')?.pricing).toBeNull();
    for (const entry of registry.entries()) {
      if (entry.pricing === null) continue;
      expect(entry.pricing.inputCacheHitPerMillion).toBeLessThanOrEqual(entry.pricing.inputPerMillion);
      expect(entry.contextWindow).toBeGreaterThan(0);
    }
    // DEEPSEEK_API_KEY > OPENAI_API_KEY > ANTHROPIC_API_KEY > OLLAMA_BASE_URL
    expect(registry.detectable().map((entry) => entry.name)).toEqual(['deepseek', 'openai', 'anthropic', 'ollama']);
  });

  it('names every problem of a bad registry', () => {
    const problems = problemsOf({
      providers: {
        good: validEntry,
        badtype: { ...validEntry, type: 'grpc' },
        nourl: { ...validEntry, baseURL: 'ftp://x' },
        nopricing: { ...validEntry, pricing: { inputPerMillion: 1, outputPerMillion: -1 } },
        typo: { ...validEntry, defaultModle: 'x' },
        offline: validEntry,
        'Bad Name': validEntry,
        nullurl: { ...validEntry, baseURL: null },
      },
    });
    const text = problems.join('\n');
    expect(problems.every((problem) => problem.startsWith('test.json: '))).toBe(true);
    expect(text).toMatch(/providers\.badtype\.type: must be "openai-compatible" or "anthropic"/);
    expect(text).toMatch(/providers\.nourl\.baseURL: must be an http\(s\) URL/);
    expect(text).toMatch(/providers\.nopricing\.pricing\.inputCacheHitPerMillion: must be a number >= 0/);
    expect(text).toMatch(/providers\.nopricing\.pricing\.outputPerMillion: must be a number >= 0/);
    expect(text).toMatch(/providers\.typo\.defaultModle: unknown field/);
    expect(text).toMatch(/providers\.offline: "offline" is reserved/);
    expect(text).toMatch(/providers\.Bad Name: name must be lower-case/);
    expect(text).toMatch(/providers\.nullurl\.baseURL: null is only allowed with a baseUrlEnvVar/);
    expect(text).not.toMatch(/providers\.good/);
  });

  it('refuses a document without providers, duplicate detection orders, unreadable and invalid files', () => {
    expect(problemsOf([])).toEqual(['test.json: expected an object with a "providers" map']);
    expect(problemsOf({ providers: {} })).toEqual(['test.json: providers: at least one entry is required']);
    expect(
      problemsOf({ providers: { a: { ...validEntry, detectionOrder: 1 }, b: { ...validEntry, detectionOrder: 1 } } }),
    ).toEqual(['test.json: providers: detectionOrder values must be unique']);
    const dir = mkdtempSync(path.join(tmpdir(), 'registry-'));
    try {
      const file = path.join(dir, 'providers.json');
      writeFileSync(file, '{ "providers": ');
      expect(() => ProviderRegistry.load(file)).toThrow(/providers\.json: invalid JSON/);
      expect(() => ProviderRegistry.load(path.join(dir, 'missing.json'))).toThrow(/cannot read the provider registry/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('overrides base URLs from <NAME>_BASE_URL, then the entry baseUrlEnvVar, then the file', () => {
    const registry = ProviderRegistry.load(defaultRegistryPath());
    const openai = registry.get('openai')!;
    const mini = registry.get('openai-mini')!;
    const generic = registry.get('openai-compatible')!;
    expect(registry.resolveBaseUrl(openai, {})).toBe('https://api.openai.com/v1');
    expect(registry.resolveBaseUrl(openai, { OPENAI_BASE_URL: 'http://proxy:8080/v1' })).toBe('http://proxy:8080/v1');
    expect(registry.resolveBaseUrl(openai, { OPENAI_BASE_URL: '   ' })).toBe('https://api.openai.com/v1');
    expect(registry.resolveBaseUrl(mini, { OPENAI_BASE_URL: 'http://proxy/v1' })).toBe('http://proxy/v1');
    expect(
      registry.resolveBaseUrl(mini, { OPENAI_BASE_URL: 'http://proxy/v1', OPENAI_MINI_BASE_URL: 'http://mini/v1' }),
    ).toBe('http://mini/v1');
    expect(registry.resolveBaseUrl(generic, {})).toBeNull();
    expect(registry.resolveBaseUrl(generic, { LLM_BASE_URL: 'http://vllm:8000/v1' })).toBe('http://vllm:8000/v1');
    expect(registry.resolveApiKey(registry.get('ollama')!, { OLLAMA_API_KEY: 'x' })).toBeUndefined();
    expect(registry.resolveApiKey(openai, { OPENAI_API_KEY: ' sk-1 ' })).toBe('sk-1');
  });

  it('derives the override variable from the entry name', () => {
    expect(baseUrlOverrideVariable('deepseek')).toBe('DEEPSEEK_BASE_URL');
    expect(baseUrlOverrideVariable('openai-mini')).toBe('OPENAI_MINI_BASE_URL');
  });
});

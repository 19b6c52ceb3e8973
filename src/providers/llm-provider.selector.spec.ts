import { ConfigValidationError } from '../config/config-validation.error';
import { loadAppConfig } from '../config/load-app-config';
import { defaultRegistryPath, ProviderRegistry } from '../config/provider-registry';
import { selectLlmProvider } from './llm-provider.selector';

const registry = ProviderRegistry.load(defaultRegistryPath());

function select(env: Record<string, string>) {
  return selectLlmProvider(loadAppConfig(env), registry);
}

function refusal(env: Record<string, string>): string[] {
  try {
    select(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigValidationError);
    return (error as ConfigValidationError).problems;
  }
  throw new Error('expected the selection to be refused');
}

describe(selectLlmProvider.name, () => {
  it.each([
    [{}, 'offline', 'offline', 'default'],
    [
      { DEEPSEEK_API_KEY: 'd', OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a', OLLAMA_BASE_URL: 'http://ollama:11434/v1' },
      'deepseek',
      'deepseek-chat',
      'detected',
    ],
    [
      { OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a', OLLAMA_BASE_URL: 'http://ollama:11434/v1' },
      'openai',
      'gpt-4o',
      'detected',
    ],
    [
      { ANTHROPIC_API_KEY: 'a', OLLAMA_BASE_URL: 'http://ollama:11434/v1' },
      'anthropic',
      'claude-sonnet-4-20250514',
      'detected',
    ],
    [{ OLLAMA_BASE_URL: 'http://ollama:11434/v1' }, 'ollama', 'llama3.1', 'detected'],
    [{ QWEN_API_KEY: 'q' }, 'offline', 'offline', 'default'],
    [{ DEEPSEEK_API_KEY: '  ' }, 'offline', 'offline', 'default'],
    [{ OPENAI_API_KEY: 'o', LLM_MODEL: 'gpt-4.1' }, 'openai', 'gpt-4.1', 'detected'],
    [{ LLM_PROVIDER: 'qwen', QWEN_API_KEY: 'q', DEEPSEEK_API_KEY: 'd' }, 'qwen', 'qwen-plus', 'LLM_PROVIDER'],
    [{ LLM_PROVIDER: 'openai-mini', OPENAI_API_KEY: 'o' }, 'openai-mini', 'gpt-4o-mini', 'LLM_PROVIDER'],
    [{ LLM_PROVIDER: 'offline', DEEPSEEK_API_KEY: 'd' }, 'offline', 'offline', 'LLM_PROVIDER'],
    [{ LLM_PROVIDER: 'ollama' }, 'ollama', 'llama3.1', 'LLM_PROVIDER'],
    [
      { LLM_BASE_URL: 'http://vllm:8000/v1', LLM_MODEL: 'qwen2.5-7b', DEEPSEEK_API_KEY: 'd' },
      'openai-compatible',
      'qwen2.5-7b',
      'LLM_BASE_URL',
    ],
  ] as const)('%j → %s / %s (%s)', (env, provider, model, source) => {
    const selection = select(env);
    expect(selection).toMatchObject({ providerName: provider, model, source });
  });

  it('resolves the key and the base URL, overrides included, for the chosen entry', () => {
    expect(select({ DEEPSEEK_API_KEY: 'sk-d' })).toMatchObject({
      kind: 'remote',
      apiKey: 'sk-d',
      baseURL: 'https://api.deepseek.com',
      detectedBy: 'DEEPSEEK_API_KEY',
    });
    expect(select({ ANTHROPIC_API_KEY: 'sk-a', ANTHROPIC_BASE_URL: 'http://gateway:9000/' })).toMatchObject({
      baseURL: 'http://gateway:9000',
    });
    expect(select({ OLLAMA_BASE_URL: 'http://gpu:11434/v1' })).toMatchObject({
      apiKey: undefined,
      baseURL: 'http://gpu:11434/v1',
      detectedBy: 'OLLAMA_BASE_URL',
    });
    expect(
      select({ LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: 'http://vllm:8000/v1', LLM_MODEL: 'm' }),
    ).toMatchObject({ apiKey: undefined });
    expect(
      select({
        LLM_PROVIDER: 'openai-compatible',
        LLM_BASE_URL: 'http://vllm:8000/v1',
        LLM_MODEL: 'm',
        LLM_API_KEY: 'k',
      }),
    ).toMatchObject({ apiKey: 'k' });
  });

  it('refuses to start with an unknown LLM_PROVIDER, naming the known ones', () => {
    expect(refusal({ LLM_PROVIDER: 'mistral' })).toEqual([
      expect.stringMatching(
        /^LLM_PROVIDER: unknown provider "mistral" \(known: deepseek, openai, openai-mini, anthropic, qwen, ollama, openai-compatible, offline;/,
      ),
    ]);
  });

  it('refuses to start when the chosen provider misses its key, model or base URL', () => {
    expect(refusal({ LLM_PROVIDER: 'anthropic' })).toEqual([
      'ANTHROPIC_API_KEY: required for provider "anthropic" (LLM_PROVIDER=anthropic)',
    ]);
    expect(refusal({ LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: 'http://vllm:8000/v1' })).toEqual([
      'LLM_MODEL: required for provider "openai-compatible", which has no default model',
    ]);
    expect(refusal({ OPENAI_API_KEY: 'o', OPENAI_BASE_URL: 'not a url' })).toEqual([
      'OPENAI_BASE_URL: "not a url" is not an http(s) URL (provider "openai")',
    ]);
  });
});

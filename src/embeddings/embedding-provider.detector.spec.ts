import { loadAppConfig } from '../config/load-app-config';
import { ConfigValidationError } from '../config/config-validation.error';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { detectEmbeddingProvider, resolveEmbeddingSettings } from './embedding-provider.detector';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';
import { LocalWordsEmbeddingProvider } from './local-words-embedding.provider';
import { OpenAiEmbeddingProvider } from './openai-embedding.provider';

function settingsFor(env: Record<string, string>) {
  return resolveEmbeddingSettings(loadAppConfig({ NODE_ENV: 'test', ...env }));
}

describe(resolveEmbeddingSettings.name, () => {
  it.each([
    ['nothing set', {}, { kind: 'local', reason: 'default', model: null, localModel: 'words' }],
    ['an empty OPENAI_API_KEY', { OPENAI_API_KEY: '  ' }, { kind: 'local', reason: 'default' }],
    [
      'OPENAI_API_KEY',
      { OPENAI_API_KEY: 'sk-test' },
      {
        kind: 'openai',
        reason: 'openai_api_key',
        model: 'text-embedding-3-small',
        apiKey: 'sk-test',
        baseURL: undefined,
      },
    ],
    [
      'OPENAI_API_KEY + EMBEDDING_MODEL',
      { OPENAI_API_KEY: 'sk-test', EMBEDDING_MODEL: 'text-embedding-3-large' },
      { kind: 'openai', model: 'text-embedding-3-large' },
    ],
    [
      'OPENAI_API_KEY + OPENAI_BASE_URL',
      { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' },
      { kind: 'openai', baseURL: 'http://127.0.0.1:9999/v1' },
    ],
    [
      'EMBEDDING_BASE_URL wins over OPENAI_BASE_URL',
      { OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: 'http://a/v1', EMBEDDING_BASE_URL: 'http://b/v1' },
      { baseURL: 'http://b/v1' },
    ],
    [
      'override none despite a key',
      { OPENAI_API_KEY: 'sk-test', EMBEDDING_PROVIDER: 'none' },
      { kind: 'none', reason: 'override', model: null },
    ],
    [
      'override local despite a key',
      { OPENAI_API_KEY: 'sk-test', EMBEDDING_PROVIDER: 'local' },
      { kind: 'local', reason: 'override' },
    ],
    [
      'override openai with EMBEDDING_API_KEY',
      { EMBEDDING_PROVIDER: 'openai', EMBEDDING_API_KEY: 'sk-emb' },
      { kind: 'openai', reason: 'override', apiKey: 'sk-emb' },
    ],
    [
      'openai-compatible',
      {
        EMBEDDING_PROVIDER: 'openai-compatible',
        EMBEDDING_BASE_URL: 'http://localhost:11434/v1',
        EMBEDDING_MODEL: 'nomic-embed-text',
      },
      {
        kind: 'openai-compatible',
        model: 'nomic-embed-text',
        baseURL: 'http://localhost:11434/v1',
        apiKey: 'not-needed',
      },
    ],
    [
      'openai-compatible with a key',
      {
        EMBEDDING_PROVIDER: 'openai-compatible',
        EMBEDDING_BASE_URL: 'http://tei:8080/v1',
        EMBEDDING_MODEL: 'bge-m3',
        EMBEDDING_API_KEY: 'tok',
      },
      { kind: 'openai-compatible', apiKey: 'tok' },
    ],
    [
      'ollama with its defaults',
      { EMBEDDING_PROVIDER: 'ollama' },
      { kind: 'ollama', model: 'nomic-embed-text', baseURL: 'http://localhost:11434/v1', apiKey: 'not-needed' },
    ],
    [
      'ollama elsewhere, another model, /v1 or not',
      { EMBEDDING_PROVIDER: 'ollama', EMBEDDING_BASE_URL: 'http://gpu-box:11434/', EMBEDDING_MODEL: 'bge-m3' },
      { kind: 'ollama', model: 'bge-m3', baseURL: 'http://gpu-box:11434/v1' },
    ],
    [
      'ollama given its /v1 address',
      { EMBEDDING_PROVIDER: 'ollama', EMBEDDING_BASE_URL: 'http://127.0.0.1:11434/v1' },
      { baseURL: 'http://127.0.0.1:11434/v1' },
    ],
    [
      'local, the words model by name',
      { EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: 'local-words-v1-612' },
      { kind: 'local', localModel: 'words', ignoredModel: null },
    ],
    [
      'local, the hashed model',
      { EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: 'local-hash-v1-1024' },
      { kind: 'local', localModel: 'hash', localDimension: 1024, ignoredModel: null },
    ],
    [
      'local without key but an OpenAI model asked for',
      { EMBEDDING_MODEL: 'text-embedding-3-large' },
      { kind: 'local', localModel: 'words', ignoredModel: 'text-embedding-3-large' },
    ],
  ])('%s', (_name, env, expected) => {
    expect(settingsFor(env as Record<string, string>)).toMatchObject(expected);
  });

  it('refuses openai without any key and openai-compatible without a model', () => {
    expect(() => settingsFor({ EMBEDDING_PROVIDER: 'openai' })).toThrow(ConfigValidationError);
    expect(() => settingsFor({ EMBEDDING_PROVIDER: 'openai-compatible', EMBEDDING_BASE_URL: 'http://x/v1' })).toThrow(
      /EMBEDDING_MODEL/,
    );
  });

  it('carries EMBEDDING_BATCH_SIZE', () => {
    expect(settingsFor({ EMBEDDING_BATCH_SIZE: '16' }).batchSize).toBe(16);
  });
});

describe(detectEmbeddingProvider.name, () => {
  const lines: LogEntry[] = [];
  beforeEach(() => {
    lines.length = 0;
    setLogSink((entry) => lines.push(entry));
  });
  afterAll(() => resetLogSink());

  it('builds the local word-vector provider by default and logs one selection line', () => {
    const provider = detectEmbeddingProvider(loadAppConfig({ NODE_ENV: 'test' }));
    expect(provider).toBeInstanceOf(LocalWordsEmbeddingProvider);
    expect(lines).toEqual([
      expect.objectContaining({
        event: 'embedding_provider_selected',
        provider: 'local',
        model: 'local-words-v1-612',
        dimension: 612,
        reason: 'default',
      }),
    ]);
  });

  it('builds the hashed-only local provider when its model is named', () => {
    const provider = detectEmbeddingProvider(loadAppConfig({ NODE_ENV: 'test', EMBEDDING_MODEL: 'local-hash-v1-256' }));
    expect(provider).toBeInstanceOf(LocalHashEmbeddingProvider);
    expect(provider).toMatchObject({ modelName: 'local-hash-v1-256', dimension: 256 });
  });

  it('builds the OpenAI adapter, and never logs the key nor the base URL credentials', () => {
    const provider = detectEmbeddingProvider(
      loadAppConfig({
        NODE_ENV: 'test',
        OPENAI_API_KEY: 'sk-secret-value',
        OPENAI_BASE_URL: 'http://user:pw@127.0.0.1:9/v1?key=abc',
      }),
    );
    expect(provider).toBeInstanceOf(OpenAiEmbeddingProvider);
    expect(provider).toMatchObject({ modelName: 'text-embedding-3-small', dimension: 1536 });
    expect(lines).toEqual([
      expect.objectContaining({
        provider: 'openai',
        model: 'text-embedding-3-small',
        dimension: 1536,
        endpoint: 'http://127.0.0.1:9',
      }),
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/sk-secret-value|pw@|key=abc/);
  });

  it('reports an unknown model dimension as learned on the first call, and null for none', () => {
    const compatible = detectEmbeddingProvider(
      loadAppConfig({
        NODE_ENV: 'test',
        EMBEDDING_PROVIDER: 'openai-compatible',
        EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1',
        EMBEDDING_MODEL: 'nomic-embed-text',
      }),
    );
    expect(compatible?.dimension).toBe(0);
    expect(detectEmbeddingProvider(loadAppConfig({ NODE_ENV: 'test', EMBEDDING_PROVIDER: 'none' }))).toBeNull();
    expect(lines.map((line) => [line.provider, line.dimension])).toEqual([
      ['openai-compatible', 'learned_on_first_call'],
      ['none', null],
    ]);
  });
});

import { loadAppConfig } from '../config/load-app-config';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { GraphStore } from '../graph/graph-store';
import { LlmProvider } from '../providers/llm-provider';
import { HealthService } from './health.service';
import { RedisHealthCheck } from './redis-health.check';

describe(HealthService.name, () => {
  const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', DATA_DIR: '/tmp/unused' });
  const storeWith = (health: GraphStore['health']) => ({ kind: 'arango', health }) as unknown as GraphStore;
  const llm = { providerName: 'deepseek', model: 'deepseek-chat', offline: false } as LlmProvider;
  const localEmbeddings = { modelName: 'local-hash-v1-512', dimension: 512 } as EmbeddingProvider;
  const up = storeWith(async () => ({ status: 'up', kind: 'arango' }));

  it('is ok while the store is up, naming the store kind and the providers (never a key)', async () => {
    const report = await new HealthService(up, config, llm, localEmbeddings).check();
    expect(report).toEqual({
      status: 'ok',
      store: { status: 'up', kind: 'arango' },
      uptimeSeconds: expect.any(Number),
      llm: { provider: 'deepseek', model: 'deepseek-chat' },
      embeddings: { provider: 'local', model: 'local-hash-v1-512' },
    });
  });

  it('names the embedding provider from the configuration, and "none" without one', async () => {
    const openAiConfig = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', DATA_DIR: '/tmp/unused', OPENAI_API_KEY: 'sk-secret-key' });
    const openAi = { modelName: 'text-embedding-3-small', dimension: 1536 } as EmbeddingProvider;
    const report = await new HealthService(up, openAiConfig, llm, openAi).check();
    expect(report.embeddings).toEqual({ provider: 'openai', model: 'text-embedding-3-small' });
    expect(JSON.stringify(report)).not.toContain('sk-secret-key');
    expect((await new HealthService(up, config, llm, null).check()).embeddings).toEqual({ provider: 'none', model: null });
  });

  it('is unavailable when the store reports itself down', async () => {
    const report = await new HealthService(storeWith(async () => ({ status: 'down', kind: 'arango', detail: 'ECONNREFUSED' })), config, llm).check();
    expect(report).toMatchObject({ status: 'unavailable', store: { status: 'down', detail: 'ECONNREFUSED' } });
  });

  it('is unavailable, naming the error, when the health check itself throws', async () => {
    const report = await new HealthService(storeWith(async () => Promise.reject(new Error('socket hang up'))), config, llm).check();
    expect(report).toMatchObject({ status: 'unavailable', store: { status: 'down', kind: 'arango', detail: 'socket hang up' } });
  });

  it('has no redis field until something provides a Redis check; then Redis counts for readiness', async () => {
    expect(await new HealthService(up, config, llm).check()).not.toHaveProperty('redis');
    const redisUp: RedisHealthCheck = { check: async () => ({ status: 'up' }) };
    expect(await new HealthService(up, config, llm, null, redisUp).check()).toMatchObject({ status: 'ok', redis: { status: 'up' } });
    const redisFailing: RedisHealthCheck = { check: async () => Promise.reject(new Error('ETIMEDOUT')) };
    expect(await new HealthService(up, config, llm, null, redisFailing).check()).toMatchObject({
      status: 'unavailable',
      redis: { status: 'down', detail: 'ETIMEDOUT' },
    });
  });
});

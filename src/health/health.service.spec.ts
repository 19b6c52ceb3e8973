import { loadAppConfig } from '../config/load-app-config';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { GraphStore } from '../graph/graph-store';
import { LlmProvider } from '../providers/llm-provider';
import { HealthService } from './health.service';
import { RedisConnection } from '../redis/redis-connection';

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
    const openAiConfig = loadAppConfig({
      NODE_ENV: 'test',
      AUTH_MODE: 'none',
      DATA_DIR: '/tmp/unused',
      OPENAI_API_KEY: 'sk-secret-key',
    });
    const openAi = { modelName: 'text-embedding-3-small', dimension: 1536 } as EmbeddingProvider;
    const report = await new HealthService(up, openAiConfig, llm, openAi).check();
    expect(report.embeddings).toEqual({ provider: 'openai', model: 'text-embedding-3-small' });
    expect(JSON.stringify(report)).not.toContain('sk-secret-key');
    expect((await new HealthService(up, config, llm, null).check()).embeddings).toEqual({
      provider: 'none',
      model: null,
    });
  });

  it('is unavailable when the store reports itself down', async () => {
    const report = await new HealthService(
      storeWith(async () => ({ status: 'down', kind: 'arango', detail: 'ECONNREFUSED' })),
      config,
      llm,
    ).check();
    expect(report).toMatchObject({ status: 'unavailable', store: { status: 'down', detail: 'ECONNREFUSED' } });
  });

  it('is unavailable, naming the error, when the health check itself throws', async () => {
    const report = await new HealthService(
      storeWith(async () => Promise.reject(new Error('socket hang up'))),
      config,
      llm,
    ).check();
    expect(report).toMatchObject({
      status: 'unavailable',
      store: { status: 'down', kind: 'arango', detail: 'socket hang up' },
    });
  });

  it('has no redis field without REDIS_URL; with it, a Redis that is down degrades the instance without making it unavailable', async () => {
    expect(await new HealthService(up, config, llm).check()).not.toHaveProperty('redis');
    const redisUp: Pick<RedisConnection, 'health'> = { health: async () => ({ status: 'up' }) };
    expect(await new HealthService(up, config, llm, null, redisUp).check()).toMatchObject({
      status: 'ok',
      redis: { status: 'up' },
    });
    const redisDown: Pick<RedisConnection, 'health'> = {
      health: async () => ({ status: 'down', detail: 'connect ECONNREFUSED 127.0.0.1:6379' }),
    };
    expect(await new HealthService(up, config, llm, null, redisDown).check()).toMatchObject({
      status: 'degraded',
      redis: { status: 'down', detail: 'connect ECONNREFUSED 127.0.0.1:6379' },
    });
    const redisFailing: Pick<RedisConnection, 'health'> = {
      health: async () => Promise.reject(new Error('ETIMEDOUT')),
    };
    expect(await new HealthService(up, config, llm, null, redisFailing).check()).toMatchObject({
      status: 'degraded',
      redis: { status: 'down', detail: 'ETIMEDOUT' },
    });
  });

  it('is unavailable when the store is down, whatever Redis says', async () => {
    const down = storeWith(async () => ({ status: 'down', kind: 'arango', detail: 'ECONNREFUSED' }));
    const redisUp: Pick<RedisConnection, 'health'> = { health: async () => ({ status: 'up' }) };
    expect(await new HealthService(down, config, llm, null, redisUp).check()).toMatchObject({
      status: 'unavailable',
      redis: { status: 'up' },
    });
  });
});

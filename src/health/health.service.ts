import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { resolveEmbeddingSettings } from '../embeddings/embedding-provider.detector';
import { EMBEDDING_PROVIDER } from '../embeddings/embedding-provider.token';
import { GraphStore, StoreHealth } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { LlmProvider } from '../providers/llm-provider';
import { LLM_PROVIDER } from '../providers/llm-provider.token';
import { RedisConnection, RedisHealth } from '../redis/redis-connection';
import { REDIS_CONNECTION } from '../redis/redis-connection.token';

export interface HealthReport {
  /**
   * `ok`: everything is up. `degraded`: Redis is down, so this instance serves alone (no shared rooms,
   * limits, overlay, aborts or rejoins across instances) until it reconnects. `unavailable`: the store is down.
   */
  status: 'ok' | 'degraded' | 'unavailable';
  store: StoreHealth;
  uptimeSeconds: number;
  /** The chat provider chosen at start (registry name and model; never a key or a URL). */
  llm: { provider: string; model: string };
  /** The embedding provider chosen at start (`none`: BM25 only). */
  embeddings: { provider: string; model: string | null };
  /** Present with REDIS_URL only. */
  redis?: RedisHealth;
}

/**
 * Readiness of what the service depends on, plus which providers it runs with. Each dependency
 * contributes one field: the store decides readiness; Redis (with REDIS_URL) only degrades the instance,
 * which keeps serving on its own while Redis is down (a readiness probe failing on every instance at
 * once because Redis is down would take the whole service out of rotation). Provider names are fixed
 * at start, so reporting them costs nothing per call.
 */
@Injectable()
export class HealthService {
  private readonly startedAt = Date.now();
  private readonly llm: HealthReport['llm'];
  private readonly embeddings: HealthReport['embeddings'];

  constructor(
    @Inject(GRAPH_STORE) private readonly store: GraphStore,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LLM_PROVIDER) llmProvider: LlmProvider,
    @Optional() @Inject(EMBEDDING_PROVIDER) embeddingProvider: EmbeddingProvider | null = null,
    @Optional() @Inject(REDIS_CONNECTION) private readonly redis: Pick<RedisConnection, 'health'> | null = null,
  ) {
    this.llm = { provider: llmProvider.providerName, model: llmProvider.model };
    this.embeddings = {
      provider: embeddingProvider ? resolveEmbeddingSettings(config).kind : 'none',
      model: embeddingProvider?.modelName ?? null,
    };
  }

  async check(): Promise<HealthReport> {
    const [store, redis] = await Promise.all([this.storeHealth(), this.redisHealth()]);
    const status = store.status !== 'up' ? 'unavailable' : redis?.status === 'down' ? 'degraded' : 'ok';
    return {
      status,
      store,
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
      llm: this.llm,
      embeddings: this.embeddings,
      ...(redis ? { redis } : {}),
    };
  }

  private async storeHealth(): Promise<StoreHealth> {
    try {
      return await this.store.health();
    } catch (error) {
      return { status: 'down', kind: this.store.kind, detail: describe(error) };
    }
  }

  private async redisHealth(): Promise<RedisHealth | undefined> {
    if (!this.redis) return undefined;
    try {
      return await this.redis.health();
    } catch (error) {
      return { status: 'down', detail: describe(error) };
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

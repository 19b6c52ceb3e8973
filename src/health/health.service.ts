import { Inject, Injectable } from '@nestjs/common';
import { GraphStore, StoreHealth } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  store: StoreHealth;
  uptimeSeconds: number;
}

/**
 * Readiness of what the service depends on. Each dependency contributes one field and one
 * "is it up" check; Redis joins as `redis` when REDIS_URL is configured.
 */
@Injectable()
export class HealthService {
  private readonly startedAt = Date.now();

  constructor(@Inject(GRAPH_STORE) private readonly store: GraphStore) {}

  async check(): Promise<HealthReport> {
    const store = await this.storeHealth();
    return {
      status: store.status === 'up' ? 'ok' : 'unavailable',
      store,
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
    };
  }

  private async storeHealth(): Promise<StoreHealth> {
    try {
      return await this.store.health();
    } catch (error) {
      return { status: 'down', kind: this.store.kind, detail: error instanceof Error ? error.message : String(error) };
    }
  }
}

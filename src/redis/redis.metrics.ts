import { Gauge, Registry } from 'prom-client';

/** `graph_ai_redis_up`: 1 while this instance reaches Redis (REDIS_URL), 0 while it serves alone (degraded). */
export class RedisMetrics {
  constructor(registry: Registry, isUp: () => boolean) {
    registry.registerMetric(
      new Gauge({
        name: 'graph_ai_redis_up',
        help: 'Whether this instance reaches Redis (1) or serves alone while Redis is down (0). Only with REDIS_URL.',
        registers: [],
        collect() {
          this.set(isUp() ? 1 : 0);
        },
      }),
    );
  }
}

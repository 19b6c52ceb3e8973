/** What /health reports of a dependency other than the store. */
export interface DependencyHealth {
  status: 'up' | 'down';
  detail?: string;
}

/**
 * The slot for Redis in GET /health. Nothing provides it yet: when REDIS_URL gets used (Socket.IO
 * Redis adapter, distributed run registry), the module owning the Redis client provides REDIS_HEALTH_CHECK
 * (a PING with a short timeout) and HealthModule imports that module; the report then carries `redis`
 * and is `unavailable` while Redis is down. Until then the report has no `redis` field.
 */
export interface RedisHealthCheck {
  check(): Promise<DependencyHealth>;
}

export const REDIS_HEALTH_CHECK = Symbol('REDIS_HEALTH_CHECK');

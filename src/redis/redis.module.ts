import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Logger } from '../observability/logger';
import { MetricsService } from '../observability/metrics.service';
import { ObservabilityModule } from '../observability/observability.module';
import { RedisConnection } from './redis-connection';
import { REDIS_CONNECTION } from './redis-connection.token';
import { RedisMetrics } from './redis.metrics';

/** How long the start waits for Redis before it goes on without it (degraded until Redis answers). */
export const REDIS_START_WAIT_MS = 5_000;

const logger = new Logger('redis');

/**
 * The connection to REDIS_URL for the whole application (global): REDIS_CONNECTION is a
 * RedisConnection, or null without REDIS_URL, so each module picks its shared or single-instance
 * implementation once, at start. A Redis that does not answer at start does not stop the service: it
 * starts degraded and takes sharing up when Redis comes. The connections are closed at application
 * shutdown, after the transports. `graph_ai_redis_up` says whether Redis is reached.
 */
@Module({})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CONNECTION) private readonly connection: RedisConnection | null) {}

  static forRoot(redisUrl: string | undefined): DynamicModule {
    return {
      module: RedisModule,
      global: true,
      imports: [ObservabilityModule],
      providers: [
        {
          provide: REDIS_CONNECTION,
          inject: [MetricsService],
          useFactory: async (metrics: MetricsService): Promise<RedisConnection | null> => {
            if (!redisUrl) return null;
            const connection = new RedisConnection(redisUrl);
            new RedisMetrics(metrics.registry, () => connection.isUp);
            if (!(await connection.ready(REDIS_START_WAIT_MS)))
              logger.warn('redis_unavailable_at_start', { waitedMs: REDIS_START_WAIT_MS });
            return connection;
          },
        },
      ],
      exports: [REDIS_CONNECTION],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connection?.close();
  }
}

import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { GraphModule } from '../graph/graph.module';
import { ObservabilityModule } from '../observability/observability.module';
import { ProvidersModule } from '../providers/providers.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { MetricsController } from './metrics.controller';

/**
 * The operations endpoints (public, outside /api): GET /health, readiness of the graph store, Redis's
 * state with REDIS_URL (RedisModule, global), and the LLM and embedding providers chosen at start;
 * GET /metrics, the Prometheus text of the application's registry (ObservabilityModule).
 */
@Module({
  imports: [GraphModule, ProvidersModule, EmbeddingsModule, ObservabilityModule],
  controllers: [HealthController, MetricsController],
  providers: [HealthService],
})
export class HealthModule {}

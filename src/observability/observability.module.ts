import { Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';

/**
 * Prometheus metrics: one MetricsService per application (its own registry), on which each module
 * registers the metrics of what it measures. Imports no other module of ours:
 * GET /metrics is served by HealthModule, beside /health; the JSON logger needs no module
 * (src/observability/logger.ts).
 */
@Module({
  providers: [{ provide: MetricsService, useFactory: () => new MetricsService() }],
  exports: [MetricsService],
})
export class ObservabilityModule {}

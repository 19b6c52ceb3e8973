import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/**
 * Prometheus metrics: one MetricsService per application (its own registry) and GET /metrics.
 * Modules that record import this module and hand MetricsService's recorders to their pure
 * classes as observers; the JSON logger needs no module (src/observability/logger.ts).
 */
@Module({
  providers: [{ provide: MetricsService, useFactory: () => new MetricsService() }],
  controllers: [MetricsController],
  exports: [MetricsService],
})
export class ObservabilityModule {}

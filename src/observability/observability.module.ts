import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { RequestLoggingModule } from './nest-logger';

/**
 * Prometheus metrics: one MetricsService per application (its own registry) and GET /metrics.
 * Modules that record import this module and hand MetricsService's recorders to their pure
 * classes as observers. The JSON logger needs no module (src/observability/logger.ts); the HTTP
 * request log (nestjs-pino) is installed here, once per application.
 */
@Module({
  imports: [RequestLoggingModule],
  providers: [{ provide: MetricsService, useFactory: () => new MetricsService() }],
  controllers: [MetricsController],
  exports: [MetricsService],
})
export class ObservabilityModule {}

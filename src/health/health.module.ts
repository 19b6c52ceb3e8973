import { Module } from '@nestjs/common';
import { GraphModule } from '../graph/graph.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

/** GET /health (public, outside /api): readiness of the graph store, and of Redis once it is used. */
@Module({
  imports: [GraphModule],
  controllers: [HealthController],
  providers: [HealthService],
})
export class HealthModule {}

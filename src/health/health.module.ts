import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { GraphModule } from '../graph/graph.module';
import { ProvidersModule } from '../providers/providers.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

/**
 * GET /health (public, outside /api): readiness of the graph store (and of Redis once it is used:
 * see REDIS_HEALTH_CHECK), and the LLM and embedding providers chosen at start.
 */
@Module({
  imports: [GraphModule, ProvidersModule, EmbeddingsModule],
  controllers: [HealthController],
  providers: [HealthService],
})
export class HealthModule {}

import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { HealthReport, HealthService } from './health.service';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Public()
  @ApiOperation({
    summary: 'Liveness and readiness',
    description:
      'Answers 200 when the graph store is up (status `ok`, or `degraded` when REDIS_URL is set and Redis is down: the instance ' +
      'then serves on its own until Redis is back), 503 when the store is down. ' +
      'Also names the store kind and the LLM and embedding providers chosen at start (names and models, never keys).',
  })
  @ApiResponse({
    status: 200,
    description: 'Ready.',
    schema: {
      example: {
        status: 'ok',
        store: { status: 'up', kind: 'sqlite' },
        uptimeSeconds: 42,
        llm: { provider: 'deepseek', model: 'deepseek-chat' },
        embeddings: { provider: 'local', model: 'local-words-v1-612' },
      },
    },
  })
  @ApiResponse({
    status: 200,
    description: 'Ready, degraded: Redis (REDIS_URL) is down; this instance serves alone and reconnects by itself.',
    schema: {
      example: {
        status: 'degraded',
        store: { status: 'up', kind: 'arango' },
        uptimeSeconds: 42,
        llm: { provider: 'openai', model: 'gpt-4o' },
        embeddings: { provider: 'openai', model: 'text-embedding-3-small' },
        redis: { status: 'down', detail: 'connect ECONNREFUSED 10.0.0.7:6379' },
      },
    },
  })
  @ApiResponse({
    status: 503,
    description: 'A dependency is down.',
    schema: {
      example: {
        status: 'unavailable',
        store: { status: 'down', kind: 'arango', detail: 'connect ECONNREFUSED' },
        uptimeSeconds: 42,
        llm: { provider: 'openai', model: 'gpt-4o' },
        embeddings: { provider: 'openai', model: 'text-embedding-3-small' },
      },
    },
  })
  async check(@Res({ passthrough: true }) response: Response): Promise<HealthReport> {
    const report = await this.health.check();
    response.status(report.status === 'unavailable' ? 503 : 200);
    return report;
  }
}

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
    description: 'Answers 200 when every dependency the service needs (the graph store; Redis when configured) is up, 503 otherwise.',
  })
  @ApiResponse({ status: 200, description: 'Ready.', schema: { example: { status: 'ok', store: { status: 'up', kind: 'sqlite' }, uptimeSeconds: 42 } } })
  @ApiResponse({
    status: 503,
    description: 'A dependency is down.',
    schema: { example: { status: 'unavailable', store: { status: 'down', kind: 'arango', detail: 'connect ECONNREFUSED' }, uptimeSeconds: 42 } },
  })
  async check(@Res({ passthrough: true }) response: Response): Promise<HealthReport> {
    const report = await this.health.check();
    response.status(report.status === 'ok' ? 200 : 503);
    return report;
  }
}

import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { MetricsService } from '../observability/metrics.service';

const SCRAPE_EXAMPLE = [
  '# HELP graph_ai_http_requests_total HTTP requests answered, by method, route template and status code (499: the client went away first).',
  '# TYPE graph_ai_http_requests_total counter',
  'graph_ai_http_requests_total{method="POST",route="/api/ai/chat",status_code="200",status_class="2xx"} 12',
  '# HELP graph_ai_retrieval_cache_hits_total Retrievals answered from the retrieval cache.',
  '# TYPE graph_ai_retrieval_cache_hits_total counter',
  'graph_ai_retrieval_cache_hits_total 5',
].join('\n');

/** GET /metrics (public, outside /api): Prometheus text of this instance. */
@ApiTags('observability')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Public()
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      'Prometheus text format 0.0.4: HTTP and Socket.IO requests by outcome, active generations, tokens and cost by provider and ' +
      'model, LLM latency (first token, total) and upstream errors, retrieval latency and cache hits, human-in-the-loop ' +
      'interrupts, and the process metrics. Per instance; no authentication (keep it off the public gateway).',
  })
  @ApiProduces('text/plain')
  @ApiResponse({
    status: 200,
    description: 'The metrics.',
    content: { 'text/plain': { schema: { type: 'string', example: SCRAPE_EXAMPLE } } },
  })
  async scrape(@Res() response: Response): Promise<void> {
    const text = await this.metrics.scrape();
    // Written as is: Express's send() would reorder the media-type parameters.
    response.status(200).setHeader('Content-Type', this.metrics.contentType);
    response.setHeader('Cache-Control', 'no-store');
    response.end(text);
  }
}

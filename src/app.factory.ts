import { INestApplication, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { NextFunction, Request, Response } from 'express';
import { apiDocsHeaders } from './api-docs.middleware';
import { AppModule, AppModuleOptions } from './app.module';
import { AppConfig } from './config/app-config';
import { JsonBodyParseWorker } from './graph/json-body-parse.worker';
import { HttpErrorFilter } from './errors/http-error.filter';
import { validationExceptionFactory } from './errors/validation-exception.factory';
import { httpMetricsMiddleware } from './observability/http-metrics.middleware';
import { configureLogging } from './observability/logger';
import { MetricsService } from './observability/metrics.service';
import { createNestLogger, httpRequestLogger } from './observability/nest-logger';
import { jsonBodyParser } from './validation/json-body.parser';

/**
 * Builds the whole application (HTTP + Socket.IO) from a validated configuration.
 * Used by main.ts and by every e2e test, so tests run exactly what production runs.
 */
export async function createApp(config: AppConfig, options: AppModuleOptions = {}): Promise<INestApplication> {
  configureLogging({ level: config.log.level, aiDebug: config.log.aiDebug, pretty: config.env === 'development' });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options), {
    bodyParser: false,
    logger: createNestLogger(),
    // Let start-up failures (bad provider settings, unreachable store) reach main.ts, which prints them and exits 1.
    abortOnError: false,
  });
  app.disable('x-powered-by');
  // First, so that answers given before any route (unknown path, refused body) are counted too.
  app.use(httpMetricsMiddleware(app.get(MetricsService).http));
  app.use(httpRequestLogger());
  // Graph import and the sync server's change feed may carry large graphs, parsed off the event loop; everything else
  // stays small (first matching parser wins).
  const graphBody = jsonBodyParser(config.server.graphImportMaxBytes, new JsonBodyParseWorker());
  app.use('/api/graphs/:graphKey', (req: Request, res: Response, next: NextFunction) =>
    req.method === 'PUT' || (req.method === 'POST' && /^\/changes\/?$/.test(req.path))
      ? graphBody(req, res, next)
      : next(),
  );
  app.use(jsonBodyParser(config.server.bodyMaxBytes));
  // MCP clients are configured with the server's URL: `/mcp` is where they look.
  app.setGlobalPrefix('api', { exclude: ['health', 'metrics', 'mcp'] });
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: validationExceptionFactory,
    }),
  );
  app.useGlobalFilters(new HttpErrorFilter());

  const openApi = new DocumentBuilder()
    .setTitle('Graph AI assistant')
    .setDescription(
      'Chat with an LLM about a workflow graph: GraphRAG retrieval, read tools, and proposed edits that a human approves. ' +
        'Streaming runs over Socket.IO (namespace /ai, see README); this document covers REST.',
    )
    .setVersion('1.0')
    .addBearerAuth()
    .build();
  app.use('/docs', apiDocsHeaders);
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, openApi), { jsonDocumentUrl: 'docs-json' });
  return app;
}

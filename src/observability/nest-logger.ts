import { LoggerService } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { Logger as NestPinoLogger, Params, PinoLogger } from 'nestjs-pino';
import { pinoHttp } from 'pino-http';
import type { RequestHandler } from 'express';
import { rootPinoLogger } from './logger';

/** Probes scraped every few seconds: answered, counted in the metrics, not logged. */
const UNLOGGED_PATHS = new Set(['/health', '/metrics']);

/** Nest's own lines and the HTTP request log: the root pino logger's redaction, level and output, under scope "nest". */
const nestLogger = rootPinoLogger().child({ scope: 'nest' });

const params: Params = { pinoHttp: { logger: nestLogger } };

/** Nest's own log calls (bootstrap, route mapping, uncaught errors) through nestjs-pino, for NestFactory's `logger` option. */
export function createNestLogger(): LoggerService {
  return new NestPinoLogger(new PinoLogger(params), params);
}

/**
 * pino-http's request log: one line per HTTP answer (method, url, headers with secrets redacted,
 * status, responseTime), `event: "http_request"`. A plain Express
 * middleware installed by app.factory right after the metrics one, so that it also logs what never
 * reaches a route (404, bodies the parser refused). Not nestjs-pino's LoggerModule: it mounts the
 * middleware as a catch-all route, which would become the route template of every unmatched request
 * in the metrics.
 */
export function httpRequestLogger(): RequestHandler {
  return pinoHttp({
    logger: nestLogger,
    autoLogging: { ignore: (req: IncomingMessage) => UNLOGGED_PATHS.has((req.url ?? '').split('?')[0]) },
    customSuccessObject: (_req: unknown, _res: unknown, fields: object) => ({ ...fields, event: 'http_request' }),
    customErrorObject: (_req: unknown, _res: unknown, _error: Error, fields: object) => ({
      ...fields,
      event: 'http_request',
    }),
    // Lines written while a request runs carry its id only, not the whole request again.
    quietReqLogger: true,
  }) as unknown as RequestHandler;
}

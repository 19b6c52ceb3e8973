import { LoggerService, RequestMethod } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { Logger as NestPinoLogger, LoggerModule, Params, PinoLogger } from 'nestjs-pino';
import { rootPinoLogger } from './logger';

/** Probes scraped every few seconds: answered, counted in the metrics, not logged. */
const UNLOGGED_PATHS = new Set(['/health', '/metrics']);

/**
 * nestjs-pino's settings, shared by the module (its HTTP request log) and Nest's own logger: both
 * write through the root pino logger under scope "nest", so redaction, level and output are the
 * JSON logger's (docs/observability.md, "Logs").
 */
const params: Params = {
  pinoHttp: {
    logger: rootPinoLogger().child({ scope: 'nest' }),
    // One line per HTTP answer (method, url, headers with secrets redacted, status, responseTime).
    autoLogging: { ignore: (req: IncomingMessage) => UNLOGGED_PATHS.has((req.url ?? '').split('?')[0]) },
    customSuccessObject: (_req: unknown, _res: unknown, fields: object) => ({ ...fields, event: 'http_request' }),
    customErrorObject: (_req: unknown, _res: unknown, _error: Error, fields: object) => ({ ...fields, event: 'http_request' }),
    // Lines written while a request runs carry its id only, not the whole request again.
    quietReqLogger: true,
  },
  // Express 5 syntax for "every path" (nestjs-pino's default "*" is the legacy one Nest 11 warns about).
  forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
};

/** The HTTP request log (pino-http) and the injectable PinoLogger; imported once by ObservabilityModule. */
export const RequestLoggingModule = LoggerModule.forRoot(params);

/** Nest's own log calls (bootstrap, route mapping, uncaught errors), for NestFactory's `logger` option. */
export function createNestLogger(): LoggerService {
  return new NestPinoLogger(new PinoLogger(params), params);
}

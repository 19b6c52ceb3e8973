import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { CLIENT_CLOSED_REQUEST, HttpMetrics } from './metrics/http.metrics';

/** The route template Express matched (`/api/ai/thread/:threadId`); null when no route handled the request. */
function routeTemplateOf(request: Request): string | null {
  const path: unknown = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : null;
}

/**
 * Counts every HTTP answer once, when its response closes: installed first (app.factory), it also
 * sees what never reaches a Nest handler — unknown routes (404), bodies refused by the parser (413,
 * malformed JSON) — with the status the error filter or the parser actually sent.
 */
export function httpMetricsMiddleware(metrics: HttpMetrics): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = performance.now();
    response.once('close', () => {
      metrics.record({
        method: request.method,
        route: routeTemplateOf(request),
        statusCode: response.writableFinished ? response.statusCode : CLIENT_CLOSED_REQUEST,
        seconds: (performance.now() - started) / 1000,
      });
    });
    next();
  };
}

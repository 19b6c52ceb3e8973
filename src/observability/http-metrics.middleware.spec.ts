import type { NextFunction, Request, Response } from 'express';
import { EventEmitter } from 'node:events';
import { httpMetricsMiddleware } from './http-metrics.middleware';
import { HttpMetrics, HttpRequestObservation } from './metrics/http.metrics';

describe(httpMetricsMiddleware.name, () => {
  function run(
    request: Partial<Request>,
    finish: (response: Response & EventEmitter) => void,
  ): HttpRequestObservation[] {
    const recorded: HttpRequestObservation[] = [];
    const metrics = {
      record: (observation: HttpRequestObservation) => recorded.push(observation),
    } as unknown as HttpMetrics;
    const response = Object.assign(new EventEmitter(), {
      statusCode: 200,
      writableFinished: false,
    }) as unknown as Response & EventEmitter;
    const next = jest.fn() as NextFunction;
    httpMetricsMiddleware(metrics)(request as Request, response, next);
    expect(next).toHaveBeenCalledTimes(1);
    finish(response);
    return recorded;
  }

  it('records the matched route template and the status sent, once the response closes', () => {
    const recorded = run({ method: 'GET', route: { path: '/api/ai/thread/:threadId' } }, (response) => {
      Object.assign(response, { statusCode: 404, writableFinished: true });
      response.emit('close');
    });
    expect(recorded).toEqual([
      { method: 'GET', route: '/api/ai/thread/:threadId', statusCode: 404, seconds: expect.any(Number) },
    ]);
  });

  it('records no route when none matched, and 499 when the client left before the answer', () => {
    const recorded = run({ method: 'POST' }, (response) => response.emit('close'));
    expect(recorded).toEqual([{ method: 'POST', route: null, statusCode: 499, seconds: expect.any(Number) }]);
  });
});

import { BadRequestException, ForbiddenException, HttpException, NotFoundException } from '@nestjs/common';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { AppError } from './app-error';
import { toErrorBody } from './to-error-body';

describe(toErrorBody.name, () => {
  const logged: LogEntry[] = [];
  beforeAll(() => setLogSink((entry) => logged.push(entry)));
  afterAll(() => resetLogSink());
  beforeEach(() => (logged.length = 0));

  it('answers an AppError with its code, status and developer message, details when it has some, retryable only when true', () => {
    expect(toErrorBody(AppError.notFound('Thread not found'))).toEqual({
      statusCode: 404,
      code: 'not_found',
      message: 'Thread not found',
    });
    expect(
      toErrorBody(AppError.badRequest('Invalid request: x', [{ field: 'x', problems: ['x must be a string'] }])),
    ).toEqual({
      statusCode: 400,
      code: 'bad_request',
      message: 'Invalid request: x',
      details: [{ field: 'x', problems: ['x must be a string'] }],
    });
    expect(toErrorBody(new AppError('thread_busy', 'busy'))).toEqual({
      statusCode: 409,
      code: 'thread_busy',
      message: 'busy',
      retryable: true,
    });
    expect(toErrorBody(new AppError('conflict', 'concurrent writes', undefined, { retryable: true }))).toMatchObject({
      statusCode: 409,
      retryable: true,
    });
  });

  it("keeps the developer message on HTTP even when the error carries a user message (that one is the socket's)", () => {
    const budget = new AppError(
      'budget_exceeded',
      'The AI usage budget has been reached.',
      { kind: 'cost' },
      { userMessage: "Le budget d'utilisation de l'IA est atteint." },
    );
    expect(toErrorBody(budget)).toEqual({
      statusCode: 402,
      code: 'budget_exceeded',
      message: 'The AI usage budget has been reached.',
      details: { kind: 'cost' },
    });
  });

  it("maps the body parser's refusals before any route: too large (413) and malformed JSON (400)", () => {
    expect(toErrorBody({ type: 'entity.too.large', status: 413, message: 'request entity too large' })).toEqual({
      statusCode: 413,
      code: 'payload_too_large',
      message: 'Request body is too large',
    });
    expect(toErrorBody({ type: 'entity.parse.failed', status: 400, message: 'Unexpected token' })).toEqual({
      statusCode: 400,
      code: 'bad_request',
      message: 'Malformed JSON body',
    });
    expect(toErrorBody({ type: 'entity.verify.failed', status: 403, message: 'no' })).toEqual({
      statusCode: 403,
      code: 'forbidden',
      message: 'no',
    });
  });

  it("maps Nest's HttpExceptions by status, 5xx to internal", () => {
    expect(toErrorBody(new NotFoundException('Cannot GET /nowhere'))).toEqual({
      statusCode: 404,
      code: 'not_found',
      message: 'Cannot GET /nowhere',
    });
    expect(toErrorBody(new ForbiddenException('Forbidden resource'))).toMatchObject({
      statusCode: 403,
      code: 'forbidden',
    });
    expect(toErrorBody(new BadRequestException('bad'))).toMatchObject({ statusCode: 400, code: 'bad_request' });
    expect(toErrorBody(new HttpException('teapot', 418))).toMatchObject({ statusCode: 418, code: 'bad_request' });
    expect(toErrorBody(new HttpException('gateway', 502))).toMatchObject({ statusCode: 502, code: 'internal' });
    expect(toErrorBody(new HttpException('slow down', 429))).toEqual({
      statusCode: 429,
      code: 'rate_limit',
      message: 'slow down',
      retryable: true,
    });
  });

  it('turns anything else into internal with a correlation id, logged once, never the message', () => {
    const body = toErrorBody(new TypeError('secret internals'));
    expect(body).toMatchObject({ statusCode: 500, code: 'internal' });
    expect(body.message).not.toContain('secret internals');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 'error',
      event: 'unhandled_error',
      errorName: 'TypeError',
      errorMessage: 'secret internals',
    });
    expect(body.message).toBe(`Internal error (correlation id ${String(logged[0].correlationId)})`);
  });
});

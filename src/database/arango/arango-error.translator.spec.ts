import { ArangoError, FetchFailedError, HttpError, ResponseTimeoutError } from 'arangojs/errors';
import { AppError } from '../../errors/app-error';
import { toErrorBody } from '../../errors/to-error-body';
import { LogEntry } from '../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { isPermissionDenied, isStoreUnavailable, toStoreError } from './arango-error.translator';

function arangoError(errorNum: number, code: number): ArangoError {
  return new ArangoError({ errorNum, code, errorMessage: `error ${errorNum}` });
}

function httpError(status: number): HttpError {
  return new HttpError({
    status,
    headers: new Headers(),
    request: new Request('http://db.internal:8529/_api/version'),
  } as never);
}

function connectionRefused(): FetchFailedError {
  const system = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8529'), {
    code: 'ECONNREFUSED',
    errno: -111,
    syscall: 'connect',
  });
  return new FetchFailedError('Fetch failed', new Request('http://10.0.0.5:8529/_api/cursor'), {
    cause: new TypeError('fetch failed', { cause: system }),
  });
}

describe('toStoreError', () => {
  const logs: LogEntry[] = [];
  beforeEach(() => {
    logs.length = 0;
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  it.each([
    ['a refused connection', connectionRefused()],
    [
      'a bare system error',
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', errno: -104, syscall: 'read' }),
    ],
    [
      'fetch failing with a system cause',
      new TypeError('fetch failed', {
        cause: Object.assign(new Error('x'), { code: 'ENOTFOUND', errno: -3008, syscall: 'getaddrinfo' }),
      }),
    ],
    [
      'a response that never came',
      new ResponseTimeoutError('timed out', new Request('http://10.0.0.5:8529/_api/cursor')),
    ],
    ['a 503 from the server (starting, shutting down)', arangoError(503, 503)],
    ['a gateway answering 502 for the server behind it', httpError(502)],
    ['a gateway timing out (504)', httpError(504)],
  ])('turns %s into store_unavailable: 503, retryable, nothing of the cause in the message', (_case, error) => {
    const translated = toStoreError(error, 'getNodes');
    expect(translated).toBeInstanceOf(AppError);
    expect(translated).toMatchObject({ code: 'store_unavailable', statusCode: 503, retryable: true });
    expect((translated as AppError).message).not.toMatch(/10\.0\.0\.5|db\.internal/);
    expect(isStoreUnavailable(error)).toBe(true);
    expect(logs).toEqual([
      expect.objectContaining({ level: 'warn', event: 'arango_unavailable', operation: 'getNodes' }),
    ]);
  });

  it.each([
    ['refused credentials (401, error 11)', arangoError(11, 401), true],
    ['a missing permission (403, error 11)', arangoError(11, 403), true],
    ['error 11 whatever the status', arangoError(11, 500), true],
    ['a proxy refusing the request (HTTP 403)', httpError(403), true],
    ['a missing collection (1203)', arangoError(1203, 404), false],
    ['a missing database (1228)', arangoError(1228, 404), false],
  ])(
    'reports %s as a configuration error: internal, not retryable, logged once at error level with the fix',
    (_case, error, permission) => {
      const translated = toStoreError(error, 'applyChanges') as AppError;
      expect(translated).toMatchObject({ code: 'internal', statusCode: 500, retryable: false });
      expect(isStoreUnavailable(error)).toBe(false);
      expect(isPermissionDenied(error)).toBe(permission);
      expect(logs).toEqual([
        expect.objectContaining({ level: 'error', event: 'arango_misconfigured', operation: 'applyChanges' }),
      ]);
      const { correlationId, hint } = logs[0] as unknown as { correlationId: string; hint: string };
      expect(hint).toMatch(permission ? /ARANGO_USER/ : /restart/);
      expect(translated.message).toContain(`correlation id ${correlationId}`);
      expect(translated.message).not.toMatch(/db\.internal|error 1[12]/);
      expect(toErrorBody(translated)).toEqual({ statusCode: 500, code: 'internal', message: translated.message });
    },
  );

  it('leaves server errors (500) to become internal errors, never a retryable store_unavailable', () => {
    for (const error of [arangoError(4, 500), arangoError(32, 500), httpError(500)]) {
      expect(toStoreError(error, 'searchNodes')).toBe(error);
      expect(isStoreUnavailable(error)).toBe(false);
    }
    expect(toErrorBody(toStoreError(arangoError(4, 500), 'searchNodes'))).toMatchObject({
      statusCode: 500,
      code: 'internal',
    });
    expect(toErrorBody(toStoreError(arangoError(4, 500), 'searchNodes'))).not.toHaveProperty('retryable');
  });

  it('turns an illegal document key (1221) into bad_request naming the rule', () => {
    const translated = toStoreError(arangoError(1221, 400), 'createNode');
    expect(translated).toMatchObject({ code: 'bad_request', statusCode: 400, retryable: false });
    expect((translated as AppError).message).toMatch(/254 bytes/);
  });

  it('turns a unique-key violation into conflict, and contention that wrote nothing into a retryable conflict', () => {
    expect(toStoreError(arangoError(1210, 409), 'createNode')).toMatchObject({
      code: 'conflict',
      statusCode: 409,
      retryable: false,
    });
    for (const errorNum of [1200, 18, 1655]) {
      expect(toStoreError(arangoError(errorNum, 409), 'applyChanges')).toMatchObject({
        code: 'conflict',
        retryable: true,
      });
    }
  });

  it('turns a missing document into not_found', () => {
    expect(toStoreError(arangoError(1202, 404), 'updateNode')).toMatchObject({ code: 'not_found', statusCode: 404 });
  });

  it('passes AppErrors and programming errors (an AQL parse error) through unchanged', () => {
    const appError = AppError.badRequest('dangling');
    const parseError = arangoError(1501, 400);
    expect(toStoreError(appError, 'x')).toBe(appError);
    expect(toStoreError(parseError, 'x')).toBe(parseError);
    expect(isStoreUnavailable(parseError)).toBe(false);
    expect(toStoreError(httpError(404), 'x')).toBeInstanceOf(HttpError);
    expect(logs).toEqual([]);
  });
});

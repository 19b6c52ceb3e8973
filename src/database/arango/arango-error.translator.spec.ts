import { ArangoError, FetchFailedError, HttpError } from 'arangojs/errors';
import { AppError } from '../../errors/app-error';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { LogEntry } from '../../observability/log-entry';
import { isStoreUnavailable, toStoreError } from './arango-error.translator';

function arangoError(errorNum: number, code: number): ArangoError {
  return new ArangoError({ errorNum, code, errorMessage: `error ${errorNum}` });
}

function httpError(status: number): HttpError {
  return new HttpError({ status, headers: new Headers(), request: new Request('http://db.internal:8529/_api/version') } as never);
}

function connectionRefused(): FetchFailedError {
  const system = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8529'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });
  return new FetchFailedError('Fetch failed', new Request('http://10.0.0.5:8529/_api/cursor'), { cause: new TypeError('fetch failed', { cause: system }) });
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
    ['a bare system error', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', errno: -104, syscall: 'read' })],
    ['fetch failing with a system cause', new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND', errno: -3008, syscall: 'getaddrinfo' }) })],
    ['a 503 from the server', arangoError(503, 503)],
    ['a lock timeout', arangoError(18, 400)],
    ['a missing collection', arangoError(1203, 404)],
    ['a missing database', arangoError(1228, 404)],
    ['refused credentials', arangoError(11, 401)],
    ['an expired stream transaction', arangoError(1655, 404)],
    ['a proxy answering 502', httpError(502)],
  ])('turns %s into store_unavailable: 503, retryable, nothing of the cause in the message', (_case, error) => {
    const translated = toStoreError(error, 'getNodes');
    expect(translated).toBeInstanceOf(AppError);
    expect(translated).toMatchObject({ code: 'store_unavailable', statusCode: 503, retryable: true });
    expect((translated as AppError).message).not.toMatch(/10\.0\.0\.5|db\.internal/);
    expect(isStoreUnavailable(error)).toBe(true);
    expect(logs).toEqual([expect.objectContaining({ level: 'warn', event: 'arango_unavailable', operation: 'getNodes' })]);
  });

  it('turns a unique-key violation into conflict and a write-write conflict into a retryable conflict', () => {
    expect(toStoreError(arangoError(1210, 409), 'createNode')).toMatchObject({ code: 'conflict', statusCode: 409, retryable: false });
    expect(toStoreError(arangoError(1200, 409), 'applyChanges')).toMatchObject({ code: 'conflict', retryable: true });
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

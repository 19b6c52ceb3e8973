import type { IncomingMessage, ServerResponse } from 'node:http';
import { socketCorsMiddleware } from './socket-cors.middleware';

function exchange(method: string, headers: Record<string, string>) {
  const set: Record<string, string> = {};
  let status: number | null = null;
  let ended = false;
  const res = {
    setHeader: (name: string, value: string) => (set[name] = value),
    writeHead: (code: number) => (status = code),
    end: () => (ended = true),
  } as unknown as ServerResponse;
  return { req: { method, headers } as unknown as IncomingMessage, res, set, result: () => ({ status, ended }) };
}

describe(socketCorsMiddleware.name, () => {
  it('echoes an allowed origin with credentials and lets the request go on', () => {
    const { req, res, set, result } = exchange('GET', { origin: 'https://app.example.com' });
    const next = jest.fn();
    socketCorsMiddleware(['https://app.example.com'])(req, res, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(set).toEqual({
      'Access-Control-Allow-Origin': 'https://app.example.com',
      'Access-Control-Allow-Credentials': 'true',
      Vary: 'Origin',
    });
    expect(result().ended).toBe(false);
  });

  it('answers a preflight of an allowed origin itself', () => {
    const { req, res, set, result } = exchange('OPTIONS', {
      origin: 'https://x.test',
      'access-control-request-headers': 'content-type',
    });
    const next = jest.fn();
    socketCorsMiddleware(['*'])(req, res, next);
    expect(next).not.toHaveBeenCalled();
    expect(result()).toEqual({ status: 204, ended: true });
    expect(set['Access-Control-Allow-Origin']).toBe('https://x.test');
    expect(set['Access-Control-Allow-Headers']).toBe('content-type');
  });

  it('adds nothing for another origin or a request without one', () => {
    for (const headers of [{ origin: 'https://evil.test' }, {}] as Array<Record<string, string>>) {
      const { req, res, set } = exchange('GET', headers);
      const next = jest.fn();
      socketCorsMiddleware(['https://app.example.com'])(req, res, next);
      expect(next).toHaveBeenCalledTimes(1);
      expect(set).toEqual({});
    }
  });
});

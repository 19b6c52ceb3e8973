import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent } from 'undici';
import { handedOnce, undiciRequestFetch } from './undici-request.fetch';

/** A full garbage collection, in a test process started without --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
}

type Handler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

/** A local HTTP server whose answer each test scripts; it records what it received. */
async function startServer(handler: Handler): Promise<{
  url: string;
  received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }>;
  server: Server;
}> {
  const received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

describe(undiciRequestFetch.name, () => {
  let agent: Agent;
  let servers: Server[];
  beforeEach(() => {
    agent = new Agent({ keepAliveTimeout: 1_000 });
    servers = [];
  });
  afterEach(async () => {
    await agent.destroy();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  const serve = async (handler: Handler) => {
    const started = await startServer(handler);
    servers.push(started.server);
    return started;
  };

  it('sends the method, headers and body bytes, and answers with status, headers and body as fetch would', async () => {
    const { url, received } = await serve((_request, _body, response) => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      response.end('{"ok":"✓"}');
    });
    const body = JSON.stringify({ content: '[SYSTEM] ✓ café 😀' });
    const headers = new Headers({ 'content-type': 'application/json', authorization: 'Bearer k' });
    const response = await undiciRequestFetch({ dispatcher: agent })(`${url}/v1/chat/completions`, {
      method: 'post',
      headers,
      body,
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: '✓' });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(received[0].headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer k',
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(received[0].headers['accept-encoding']).toBeUndefined();
    expect(received[0].body.toString('utf8')).toBe(body);
  });

  it('sends an empty string body as an empty body with content-length 0', async () => {
    const { url, received } = await serve((_request, _body, response) => response.end('ok'));
    const response = await undiciRequestFetch({ dispatcher: agent })(url, { method: 'POST', body: '' });
    expect(await response.text()).toBe('ok');
    expect(received[0].headers['content-length']).toBe('0');
    expect(received[0].body.byteLength).toBe(0);
  });

  it('hands a body’s bytes over once and keeps no reference to them (undici keeps the request until its response ends)', async () => {
    let bytesRef: WeakRef<Uint8Array> | undefined;
    const body = ((): Iterable<Uint8Array> => {
      const bytes = new Uint8Array(64 * 1024);
      bytesRef = new WeakRef(bytes);
      return handedOnce(bytes);
    })();
    const pieces = body[Symbol.iterator]();
    expect(pieces.next().value?.byteLength).toBe(64 * 1024);
    expect(pieces.next()).toEqual({ done: true, value: undefined });
    // A WeakRef's target stays alive until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(bytesRef?.deref()).toBeUndefined();
    expect(body).toBeDefined(); // the iterable itself is still reachable here
  });

  it('streams the body as it arrives and keeps the connection for the next request', async () => {
    let release: () => void = () => undefined;
    const { url, server } = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      release = () => response.end('data: [DONE]\n\n');
    });
    let opened = 0;
    server.on('connection', () => opened++);
    const connections = () => opened;
    const fetchUpstream = undiciRequestFetch({ dispatcher: agent });
    const response = await fetchUpstream(url, { method: 'POST', body: new Uint8Array([123, 125]) });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('data: 1\n\n');
    release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += Buffer.from(chunk.value).toString();
    expect(rest).toBe('data: [DONE]\n\n');
    await new Promise((resolve) => setImmediate(resolve)); // undici puts the socket back in the pool once the body's end was read
    const second = await fetchUpstream(url, { method: 'POST', body: '{}' });
    expect(second.status).toBe(200);
    await second.body?.cancel();
    expect(connections()).toBe(1);
  });

  it('answers a status without a body with a null body', async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(204);
      response.end();
    });
    const response = await undiciRequestFetch({ dispatcher: agent })(url, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('rejects with the signal’s reason when stopped before the headers, and sends nothing when stopped before', async () => {
    const { url, received } = await serve(() => undefined); // never answers
    const fetchUpstream = undiciRequestFetch({ dispatcher: agent });
    const stopped = new AbortController();
    stopped.abort(new Error('stopped early'));
    await expect(fetchUpstream(url, { method: 'POST', body: '{}', signal: stopped.signal })).rejects.toThrow(
      'stopped early',
    );
    const controller = new AbortController();
    const pending = fetchUpstream(url, { method: 'POST', body: '{}', signal: controller.signal });
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toHaveLength(1);
  });

  it('errors the body with the signal’s reason when stopped while it streams', async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    });
    const controller = new AbortController();
    const response = await undiciRequestFetch({ dispatcher: agent })(url, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const reason = new Error('client stopped');
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
  });

  it('reports a refused connection as fetch does: TypeError "fetch failed" with the socket error as its cause', async () => {
    const { url, server } = await serve(() => undefined);
    servers.splice(servers.indexOf(server), 1);
    await new Promise((resolve) => server.close(resolve));
    const failure = await undiciRequestFetch({ dispatcher: agent })(url, { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  });

  it('reports a body cut off as fetch does: TypeError "terminated" with undici’s error as its cause', async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n', () => response.socket?.destroy());
    });
    const response = await undiciRequestFetch({ dispatcher: agent })(url, { method: 'POST', body: '{}' });
    const failure = await response.text().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: 'terminated', cause: { code: 'UND_ERR_SOCKET' } });
  });

  it('hands a successful event-stream body over in pieces of at most the bound, bytes and order unchanged; other bodies as received', async () => {
    const events = Array.from({ length: 200 }, (_, i) => `data: {"i":${i},"text":"é${'x'.repeat(40)}"}\n\n`).join('');
    const answers = [
      { status: 200, type: 'text/event-stream; charset=utf-8', body: events },
      { status: 200, type: 'application/json', body: JSON.stringify({ text: 'y'.repeat(5_000) }) },
      { status: 429, type: 'text/event-stream', body: `data: ${'z'.repeat(3_000)}\n\n` },
    ];
    const { url } = await serve((_request, _body, response) => {
      const answer = answers.shift() as (typeof answers)[number];
      response.writeHead(answer.status, {
        'content-type': answer.type,
        'content-length': Buffer.byteLength(answer.body),
      });
      response.end(answer.body); // one write: undici reads it in a few large chunks
    });
    const fetchUpstream = undiciRequestFetch({ dispatcher: agent, eventStreamPieceBytes: 100 });
    const read = async () => {
      const pieces: Uint8Array[] = [];
      for await (const piece of (await fetchUpstream(url, { method: 'POST', body: '{}' }))
        .body as ReadableStream<Uint8Array>)
        pieces.push(piece);
      return pieces;
    };
    const streamed = await read();
    expect(Math.max(...streamed.map((piece) => piece.byteLength))).toBeLessThanOrEqual(100);
    expect(Buffer.concat(streamed).toString('utf8')).toBe(events);
    const json = await read();
    expect(Math.max(...json.map((piece) => piece.byteLength))).toBeGreaterThan(100);
    const refused = await read();
    expect(Math.max(...refused.map((piece) => piece.byteLength))).toBeGreaterThan(100);
  });

  it('refuses a piece bound that is not a positive integer', () => {
    expect(() => undiciRequestFetch({ eventStreamPieceBytes: 0 })).toThrow(RangeError);
    expect(() => undiciRequestFetch({ eventStreamPieceBytes: 1.5 })).toThrow(RangeError);
  });

  it('hands requests it does not handle (a FormData body, a Request) to the fallback', async () => {
    const seen: unknown[] = [];
    const fallback = (async (input: unknown) => {
      seen.push(input);
      return new Response('fallback');
    }) as typeof fetch;
    const fetchUpstream = undiciRequestFetch({ dispatcher: agent, fallback });
    const form = new FormData();
    form.set('file', 'x');
    expect(await (await fetchUpstream('http://127.0.0.1:1/upload', { method: 'POST', body: form })).text()).toBe(
      'fallback',
    );
    const request = new Request('http://127.0.0.1:1/r');
    expect(await (await fetchUpstream(request)).text()).toBe('fallback');
    expect(seen).toEqual(['http://127.0.0.1:1/upload', request]);
  });
});

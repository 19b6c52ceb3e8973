import jwt from 'jsonwebtoken';
import { request as httpRequest } from 'node:http';
import { connect as connectTcp } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { LogEntry } from '../../src/observability/log-entry';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { JSON_MAX_DEPTH } from '../../src/validation/json-shape.checker';
import { AiSocketClient } from '../support/ai-socket.client';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
/** About 12 KB of brackets: what overflowed the validation pipe's and class-transformer's stacks. */
const DEEP_LEVELS = 2_400;
const deepArray = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObject = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** POSTs the bytes as they are (supertest would re-encode a Buffer), with exactly these headers. */
function rawPost(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const call = httpRequest(
      new URL(path, url),
      { method: 'POST', headers: { ...headers, 'Content-Length': String(bytes.length) } },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }),
        );
      },
    );
    call.on('error', reject);
    call.end(bytes);
  });
}

describe('Hostile input (REST and Socket.IO)', () => {
  let app: TestApp;
  const errors: LogEntry[] = [];
  const clients: AiSocketClient[] = [];

  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0' });
    setLogSink((entry) => {
      if (entry.level === 'error') errors.push(entry);
    });
  });
  afterAll(async () => {
    resetLogSink();
    await app.close();
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    // No hostile input is the service's failure: nothing of it is logged as an error.
    expect(errors.splice(0)).toEqual([]);
  });

  const socket = async () => {
    const client = await AiSocketClient.connect(app.url);
    clients.push(client);
    return client;
  };

  describe('nesting depth', () => {
    it.each([
      [
        'POST /api/ai/chat',
        '/api/ai/chat',
        `{"graphKey":"${GRAPH}","message":"hi","mentions":${deepArray(DEEP_LEVELS)}}`,
      ],
      [
        'POST /api/rag/context',
        '/api/rag/context',
        `{"graphKey":"${GRAPH}","query":"x","options":${deepObject(DEEP_LEVELS)}}`,
      ],
      ['POST /api/ai/threads', '/api/ai/threads', deepArray(DEEP_LEVELS)],
    ])('refuses %s nested 2,400 levels with 400 bad_request before validation', async (_name, path, body) => {
      const response = await rawPost(app.url, path, { 'Content-Type': 'application/json' }, body);
      expect(response.body).toMatchObject({ statusCode: 400, code: 'bad_request' });
      expect(response.body.details[0].problems).toEqual([`nesting deeper than ${JSON_MAX_DEPTH} levels`]);
    });

    it('refuses a graph import whose node data nests too deep, and keeps the graph', async () => {
      const document = JSON.stringify(nbaWorkflowDemo).replace(
        '"data":{',
        `"data":{"deep":${deepObject(DEEP_LEVELS)},`,
      );
      const response = await request(app.url)
        .put(`/api/graphs/${GRAPH}`)
        .set('Content-Type', 'application/json')
        .send(document)
        .expect(400);
      expect(response.body.details[0]).toMatchObject({ problems: [`nesting deeper than ${JSON_MAX_DEPTH} levels`] });
      expect(response.body.details[0].field).toMatch(/^nodes\.\d+\.data\.deep\.a\.a/);
      await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200);
    });

    it('accepts data nested as deep as real workflows go', async () => {
      const nested = JSON.parse(deepObject(20)) as Record<string, unknown>;
      const response = await request(app.url)
        .post('/api/graphs/' + GRAPH + '/changes')
        .send({ upsertNodes: [{ ...nbaWorkflowDemo.nodes[1], data: nested }], saved: false })
        .expect(202);
      expect(response.body.accepted).toBe(true);
    });

    it('answers a deep socket payload with ai:error bad_request for its _id', async () => {
      const client = await socket();
      client.emitRaw('ai:chat', {
        _id: 7,
        graphKey: GRAPH,
        message: 'hi',
        mentions: JSON.parse(deepArray(DEEP_LEVELS)),
      });
      const answer = await client.terminalOf(7);
      expect(answer.error).toMatchObject({ _id: 7, code: 'bad_request', retryable: false });
      expect(answer.error?.error).toContain(`nesting deeper than ${JSON_MAX_DEPTH} levels`);
    });
  });

  describe('__proto__ and constructor keys', () => {
    it.each([
      [
        'a top-level __proto__',
        '/api/rag/context',
        `{"graphKey":"${GRAPH}","query":"x","__proto__":{"polluted":true}}`,
        '__proto__',
      ],
      [
        'a top-level constructor',
        '/api/rag/context',
        `{"graphKey":"${GRAPH}","query":"x","constructor":{"name":"x"}}`,
        'constructor',
      ],
      [
        'a nested constructor',
        '/api/rag/context',
        `{"graphKey":"${GRAPH}","query":"x","options":{"constructor":1}}`,
        'options.constructor',
      ],
      [
        '__proto__ in chat',
        '/api/ai/chat',
        `{"graphKey":"${GRAPH}","message":"hi","__proto__":{"role":"admin"}}`,
        '__proto__',
      ],
    ])('refuses %s with 400 like any unknown field', async (_name, path, body, field) => {
      const response = await rawPost(app.url, path, { 'Content-Type': 'application/json' }, body);
      const key = field.split('.').pop();
      expect(response.body).toMatchObject({
        statusCode: 400,
        code: 'bad_request',
        details: [{ field, problems: [`property ${key} should not exist`] }],
      });
    });

    it('refuses them inside free-form node data too, where they were silently dropped', async () => {
      const node = JSON.stringify({ ...nbaWorkflowDemo.nodes[1], data: { ok: 1 } }).replace(
        '"ok":1',
        '"ok":1,"__proto__":{"x":1}',
      );
      const response = await rawPost(
        app.url,
        `/api/graphs/${GRAPH}/changes`,
        { 'Content-Type': 'application/json' },
        `{"upsertNodes":[${node}],"saved":false}`,
      );
      expect(response.body.details).toEqual([
        { field: 'upsertNodes.0.data.__proto__', problems: ['property __proto__ should not exist'] },
      ]);
    });

    it.each([
      ['ai:chat', '{"_id":8,"graphKey":"nba-workflow","message":"hi","__proto__":{"role":"admin"}}'],
      ['ai:resume', '{"_id":8,"threadId":"ai_x","approved":true,"constructor":{"prototype":{}}}'],
      ['ai:interrupt', '{"_id":8,"__proto__":{}}'],
    ])('answers %s carrying one with ai:error bad_request', async (event, payload) => {
      const client = await socket();
      client.emitRaw(event, JSON.parse(payload));
      const id = event === 'ai:interrupt' ? null : 8;
      const answer = await client.terminalOf(id);
      expect(answer.error).toMatchObject({ code: 'bad_request' });
      expect(answer.error?.error).toMatch(/property (__proto__|constructor) should not exist/);
    });
  });

  describe('body-parser errors', () => {
    const contextBody = JSON.stringify({ graphKey: GRAPH, query: 'fetch api' });

    it.each([
      [
        'an unsupported charset',
        { 'Content-Type': 'application/json; charset=latin-9' },
        contextBody,
        415,
        'unsupported_media_type',
      ],
      [
        'an unknown Content-Encoding',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'br2' },
        contextBody,
        415,
        'unsupported_media_type',
      ],
      [
        'a body that is not the gzip it claims',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        contextBody,
        400,
        'bad_request',
      ],
      ['a body that is not JSON', { 'Content-Type': 'text/plain' }, contextBody, 415, 'unsupported_media_type'],
      [
        'a form body',
        { 'Content-Type': 'application/x-www-form-urlencoded' },
        'graphKey=nba-workflow&query=x',
        415,
        'unsupported_media_type',
      ],
      ['malformed JSON', { 'Content-Type': 'application/json' }, '{"graphKey":', 400, 'bad_request'],
      ['a JSON primitive', { 'Content-Type': 'application/json' }, '"just a string"', 400, 'bad_request'],
    ])('answers %s in the error shape', async (_name, headers, body, status, code) => {
      const response = await rawPost(app.url, '/api/rag/context', headers, body);
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ statusCode: status, code, message: expect.any(String) });
    });

    it('reads a gzip-encoded JSON body', async () => {
      const response = await rawPost(
        app.url,
        '/api/rag/context',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        gzipSync(contextBody),
      );
      expect(response.status).toBe(200);
      expect(response.body.context.relevantNodes.length).toBeGreaterThan(0);
    });

    it('answers an empty POST without Content-Type as a missing body, not as an unsupported one', async () => {
      const response = await request(app.url).post('/api/ai/threads').expect(400);
      expect(response.body.code).toBe('bad_request');
    });

    it('lets a client abort mid-body without an error log or a 5xx, and keeps serving', async () => {
      const { port, hostname } = new URL(app.url);
      await new Promise<void>((resolve, reject) => {
        const tcp = connectTcp(Number(port), hostname, () => {
          tcp.write(
            `POST /api/rag/context HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"graphKey":"nba`,
          );
          setTimeout(() => {
            tcp.destroy();
            resolve();
          }, 50);
        });
        tcp.on('error', reject);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await request(app.url).get('/health').expect(200);
      const metrics = (await request(app.url).get('/metrics').expect(200)).text;
      expect(metrics).not.toMatch(/status="5\d\d"/);
    });
  });

  describe('graph keys', () => {
    it.each([
      ['10,000 characters', 'k'.repeat(10_000), 'graphKey must be at most 256 characters'],
      ['../', '..%2F..%2Fetc', 'graphKey must not contain / or \\'],
      ['..', '..%2E', null],
      ['a NUL', 'graph%00key', 'graphKey must not contain control characters'],
      ['a backslash', '..%5Cwindows', 'graphKey must not contain / or \\'],
    ])('refuses a path key with %s on every graph route', async (_name, key, problem) => {
      const document = { ...nbaWorkflowDemo, graph: { ...nbaWorkflowDemo.graph, _key: decodeURIComponent(key) } };
      const answers = [
        await request(app.url).put(`/api/graphs/${key}`).send(document),
        await request(app.url).get(`/api/graphs/${key}`),
        await request(app.url).post(`/api/graphs/${key}/changes`).send({ saved: false }),
      ];
      for (const answer of answers) {
        // Express itself answers 404 to a path it cannot route ("..." resolved by the URL parser).
        if (problem === null) {
          expect([400, 404]).toContain(answer.status);
          continue;
        }
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          code: 'bad_request',
          details: [{ field: 'graphKey', problems: [problem] }],
        });
      }
    });

    it('applies the same rule to the graph keys of bodies', async () => {
      for (const [path, body] of [
        ['/api/ai/chat', { graphKey: '../x', message: 'hi' }],
        ['/api/ai/threads', { graphKey: 'a\u0000b' }],
        ['/api/rag/context', { graphKey: 'k'.repeat(257), query: 'x' }],
      ] as const) {
        const response = await request(app.url).post(path).send(body).expect(400);
        expect(response.body.details[0].field).toBe('graphKey');
      }
    });

    it('accepts a key with spaces, dots and colons on every route alike', async () => {
      const key = 'team graph:v1.2';
      const document = structuredClone(nbaWorkflowDemo);
      document.graph._key = key;
      for (const item of [...document.nodes, ...document.edges]) item.graphKey = key;
      await request(app.url)
        .put(`/api/graphs/${encodeURIComponent(key)}`)
        .send(document)
        .expect(200);
      await request(app.url)
        .get(`/api/graphs/${encodeURIComponent(key)}`)
        .expect(200);
      await request(app.url).post('/api/rag/context').send({ graphKey: key, query: 'fetch' }).expect(200);
      await request(app.url).post('/api/ai/threads').send({ graphKey: key }).expect(200);
    });
  });

  it('answers an over-long context query with 413, as chat does', async () => {
    const query = 'x'.repeat(app.config.limits.messageMaxChars + 1);
    const context = await request(app.url).post('/api/rag/context').send({ graphKey: GRAPH, query }).expect(413);
    const chat = await request(app.url).post('/api/ai/chat').send({ graphKey: GRAPH, message: query }).expect(413);
    expect(context.body).toEqual({
      statusCode: 413,
      code: 'payload_too_large',
      message: `query is longer than ${app.config.limits.messageMaxChars} characters`,
    });
    expect(chat.body.code).toBe(context.body.code);
  });
});

describe('Hostile Authorization headers (AUTH_MODE=jwt)', () => {
  const secret = 'hostile-input-secret-of-32-chars!';
  const token = jwt.sign({ sub: 'alice', workspace: 'default', role: 'admin' }, secret, { expiresIn: 600 });
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ AUTH_MODE: 'jwt', JWT_SECRET: secret });
  });
  afterAll(() => app.close());

  it('accepts `Bearer <jwt>`', async () => {
    await request(app.url).get(`/api/graphs/${GRAPH}`).set('Authorization', `Bearer ${token}`).expect(200);
  });

  it.each([
    ['a token followed by junk', `Bearer ${token} junk`],
    ['two tokens', `Bearer ${token} ${token}`],
    ['the scheme alone', 'Bearer'],
  ])('refuses %s with 401', async (_name, header) => {
    const response = await request(app.url).get(`/api/graphs/${GRAPH}`).set('Authorization', header).expect(401);
    expect(response.body).toEqual({
      statusCode: 401,
      code: 'unauthorized',
      message: 'Malformed Authorization header: expected "Bearer <token>"',
    });
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('refuses a malformed header on the change feed too', async () => {
    await request(app.url)
      .post(`/api/graphs/${GRAPH}/changes`)
      .set('Authorization', `Bearer ${token} junk`)
      .send({ saved: false })
      .expect(401);
  });

  it('refuses a socket whose handshake header carries junk after the token', async () => {
    const { io } = await import('socket.io-client');
    const socket = io(`${app.url}/ai`, {
      transports: ['polling'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { Authorization: `Bearer ${token} junk` },
    });
    const error = await new Promise<Error>((resolve) => socket.once('connect_error', resolve));
    socket.close();
    expect(error.message).toBe('unauthorized');
  });
});

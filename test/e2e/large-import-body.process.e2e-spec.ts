import { mkdtempSync, rmSync } from 'node:fs';
import { IncomingMessage, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { OFF_THREAD_MIN_BODY_BYTES } from '../../src/validation/json-body.parser';
import { syntheticGraph } from '../support/synthetic-graph';
import { startTestApp, TestApp } from '../support/test-app';
import { TestAppProcess } from '../support/test-app.process';

/**
 * Graph import bodies of more than OFF_THREAD_MIN_BODY_BYTES are parsed in a worker thread, which
 * only a service process runs (Jest's own module system has no thread loader: there, the body is
 * parsed in line). The same bodies sent to both must get the same answers.
 */
describe('Large graph import bodies parsed off the event loop (service process)', () => {
  let dataDir: string;
  let service: TestAppProcess;
  let inLine: TestApp;
  const env = { EMBEDDING_PROVIDER: 'none', GRAPH_MAX_NODES: '20000', GRAPH_IMPORT_MAX_BYTES: String(8 * 1024 * 1024) };
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'import-body-'));
    service = await TestAppProcess.start({ ...env, DATA_DIR: dataDir }, { timeoutMs: 60_000 });
    inLine = await startTestApp(env);
  }, 90_000);
  afterAll(async () => {
    await service?.close();
    await inLine?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const put = (url: string, graphKey: string, body: string) =>
    request(url).put(`/api/graphs/${graphKey}`).set('Content-Type', 'application/json').send(body);

  it('imports a large body whole, and answers what the in-line parser answers to broken ones', async () => {
    const document = syntheticGraph('large', 10_000, 500);
    const text = JSON.stringify(document);
    expect(Buffer.byteLength(text)).toBeGreaterThan(OFF_THREAD_MIN_BODY_BYTES);
    const imported = await put(service.url, 'large', text);
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ nodes: 10_000, edges: 500 });
    const exported = await request(service.url).get('/api/graphs/large').expect(200);
    expect(exported.body.nodes).toHaveLength(10_000);
    expect(exported.body.nodes.find((node: { _key: string }) => node._key === 'n9999')).toMatchObject(
      document.nodes[9_999],
    );

    const padding = ' '.repeat(OFF_THREAD_MIN_BODY_BYTES);
    const broken = {
      malformed: `${text.slice(0, -2)}${padding}`,
      scalar: `${padding}"a string"`,
      forbiddenKey: text.replace('"posX":5000,', '"posX":5000,"data":{"__proto__":{"polluted":true}},'),
      unknownField: text.replace('"posX":7000,', '"posX":7000,"colour":"red",'),
      deep: text.replace('"posX":42,', `"posX":42,"data":{"deep":${'['.repeat(70)}${']'.repeat(70)}},`),
    };
    for (const [name, body] of Object.entries(broken)) {
      const [offThread, expected] = await Promise.all([
        put(service.url, 'broken', body),
        put(inLine.url, 'broken', body),
      ]);
      expect({ name, status: offThread.status, body: offThread.body }).toEqual({
        name,
        status: expected.status,
        body: expected.body,
      });
      expect(offThread.status).toBe(400);
    }
    await request(service.url).get('/api/graphs/broken').expect(404);
  }, 120_000);

  it('parses a large body sent without a Content-Length (chunked)', async () => {
    const text = JSON.stringify(syntheticGraph('chunked', 6_000));
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const call = httpRequest(
        new URL('/api/graphs/chunked', service.url),
        { method: 'PUT', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (response: IncomingMessage) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      call.on('error', reject);
      for (let offset = 0; offset < text.length; offset += 64 * 1024)
        call.write(text.slice(offset, offset + 64 * 1024));
      call.end();
    });
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ nodes: 6_000, edges: 0 }) });
  }, 60_000);
});

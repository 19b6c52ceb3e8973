import { decode } from '@toon-format/toon';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { buildContextMessage } from '../../src/rag/toon-context.encoder';
import { TokenCounter } from '../../src/rag/token-counter';
import { TestApp, startTestApp } from '../support/test-app';

describe('POST /api/rag/context', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('never loads the tokenizer in its own thread: tokenEstimate is counted by a worker thread, with the o200k_base count', async () => {
    const response = await request(app.url)
      .post('/api/rag/context')
      .send({ graphKey: 'nba-workflow', query: 'filter active players' })
      .expect(200);
    const counter = new TokenCounter();
    expect(counter.loaded).toBe(false);
    expect(response.body.tokenEstimate).toBe(
      counter.count(buildContextMessage(response.body.context, app.config.locale)),
    );
  });

  it('returns what the AI would see: fetch-api with its neighbours, the edges between them, and their TOON form', async () => {
    const response = await request(app.url)
      .post('/api/rag/context')
      .send({ graphKey: 'nba-workflow', query: 'fetch api NBA' })
      .expect(200);
    const { context, toon, tokenEstimate } = response.body;

    const keys = context.relevantNodes.map((node: { _key: string }) => node._key);
    expect(context.relevantNodes[0]).toMatchObject({
      _key: 'fetch-api',
      typeName: 'API Call',
      sheetName: 'main',
      origin: 'search',
    });
    expect(keys).toEqual(expect.arrayContaining(['fetch-api', 'root', 'filter-active', 'error-handler']));
    const edgeKeys = context.relevantEdges.map((edge: { _key: string }) => edge._key);
    expect(edgeKeys).toEqual(
      expect.arrayContaining(['root-to-fetch-api', 'fetch-api-to-filter-active', 'fetch-api-to-error-handler']),
    );
    expect(context.graph).toMatchObject({ _key: 'nba-workflow', sheets: { '0': 'main', '1': 'data-processing' } });
    expect(context.retrieval).toMatchObject({ query: 'fetch api NBA', cacheHit: false });
    expect(['bm25', 'hybrid']).toContain(context.retrieval.searchMode);

    expect(toon.startsWith('RELEVANT NODES:\n')).toBe(true);
    for (const key of ['fetch-api', 'root', 'filter-active', 'error-handler'])
      expect(toon).toMatch(new RegExp(`^  ${key},`, 'm'));
    expect(toon).toContain('fetch-api,api-call (API Call),main,');
    const edgesBlock = toon.split('RELEVANT EDGES:\n')[1];
    expect(decode(edgesBlock)).toContainEqual({ from: 'fetch-api:R-0', to: 'filter-active:L-0', label: 'success' });
    expect(tokenEstimate).toBeGreaterThan(50);
    expect(tokenEstimate).toBeLessThan(toon.length);
  });

  it('honours maxNodes and maxDepth, and serves a repeated question from the cache', async () => {
    const body = { graphKey: 'nba-workflow', query: 'root', options: { maxNodes: 3, maxDepth: 1 } };
    const first = await request(app.url).post('/api/rag/context').send(body).expect(200);
    expect(first.body.context.relevantNodes.map((node: { _key: string }) => node._key)).toEqual([
      'root',
      'entry-form',
      'fetch-api',
    ]);
    const second = await request(app.url).post('/api/rag/context').send(body).expect(200);
    expect(second.body.context.retrieval.cacheHit).toBe(true);
  });

  it('answers 404 for an unknown graph', async () => {
    const response = await request(app.url)
      .post('/api/rag/context')
      .send({ graphKey: 'no-such-graph', query: 'x' })
      .expect(404);
    expect(response.body).toMatchObject({ statusCode: 404, code: 'not_found' });
  });

  it.each([
    ['an unknown field', { graphKey: 'nba-workflow', query: 'x', topK: 5 }, 'topK'],
    ['an unknown option', { graphKey: 'nba-workflow', query: 'x', options: { depth: 2 } }, 'options.depth'],
    ['maxDepth above 3', { graphKey: 'nba-workflow', query: 'x', options: { maxDepth: 4 } }, 'options.maxDepth'],
    ['maxDepth 0', { graphKey: 'nba-workflow', query: 'x', options: { maxDepth: 0 } }, 'options.maxDepth'],
    ['a fractional maxNodes', { graphKey: 'nba-workflow', query: 'x', options: { maxNodes: 2.5 } }, 'options.maxNodes'],
    ['maxNodes above 100', { graphKey: 'nba-workflow', query: 'x', options: { maxNodes: 101 } }, 'options.maxNodes'],
    ['a missing query', { graphKey: 'nba-workflow' }, 'query'],
    ['an empty graphKey', { graphKey: '', query: 'x' }, 'graphKey'],
  ])('answers 400 for %s', async (_name, body, field) => {
    const response = await request(app.url).post('/api/rag/context').send(body).expect(400);
    expect(response.body).toMatchObject({ statusCode: 400, code: 'bad_request' });
    expect(response.body.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('documents the route in OpenAPI with an example', async () => {
    const response = await request(app.url).get('/docs-json').expect(200);
    const operation = response.body.paths['/api/rag/context'].post;
    expect(operation.tags).toEqual(['rag']);
    expect(operation.responses['200'].content['application/json'].schema.example.toon).toContain('RELEVANT NODES');
  });
});

describe('POST /api/rag/context with JWT authentication', () => {
  const secret = 'rag-context-e2e-secret-of-32-chars!';
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_MODE: 'jwt', JWT_SECRET: secret });
  });
  afterAll(() => app.close());

  it('requires a token and scopes the graph to the caller workspace', async () => {
    await request(app.url).post('/api/rag/context').send({ graphKey: 'nba-workflow', query: 'fetch' }).expect(401);
    const outsider = jwt.sign({ sub: 'u1', workspace: 'acme' }, secret, { expiresIn: 600 });
    await request(app.url)
      .post('/api/rag/context')
      .set('Authorization', `Bearer ${outsider}`)
      .send({ graphKey: 'nba-workflow', query: 'fetch' })
      .expect(404);
    const viewer = jwt.sign({ sub: 'u2', workspace: 'default' }, secret, { expiresIn: 600 });
    await request(app.url)
      .post('/api/rag/context')
      .set('Authorization', `Bearer ${viewer}`)
      .send({ graphKey: 'nba-workflow', query: 'fetch' })
      .expect(200);
  });
});

import request from 'supertest';
import { GraphDocument } from '../../src/graph/graph.types';
import { syntheticGraph } from '../support/synthetic-graph';
import { startTestApp, TestApp } from '../support/test-app';

const graphOf = (graphKey: string, count: number): GraphDocument => syntheticGraph(graphKey, count, 1_999);

/** Calls /health one after the other until `work` settles; resolves with how many answered before it did. */
async function healthAnswersDuring(app: TestApp, work: Promise<unknown>): Promise<number> {
  let settled = false;
  void work.finally(() => (settled = true));
  let answers = 0;
  while (!settled) {
    await request(app.url).get('/health').expect(200);
    if (!settled) answers += 1;
  }
  return answers;
}

/**
 * A large graph (here 10,000 nodes; `npm run bench` measures 50,000) is imported and indexed without
 * freezing the service: other requests are answered while the body is validated, the graph written
 * and its indexes built (docs/reliability.md). The size limits answer 413.
 */
describe('Large graph imports (HTTP)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ EMBEDDING_PROVIDER: 'none', GRAPH_MAX_NODES: '20000', GRAPH_MAX_EDGES: '2000' });
  });
  afterAll(() => app.close());

  it('keeps answering other requests while a 10,000-node graph is imported, then while its first context is built', async () => {
    const document = graphOf('large', 10_000);
    const importing = request(app.url)
      .put('/api/graphs/large')
      .send(document)
      .then((response) => response);
    expect(await healthAnswersDuring(app, importing)).toBeGreaterThan(2);
    expect((await importing).body).toEqual({ nodes: 10_000, edges: 1_999 });

    const retrieving = request(app.url)
      .post('/api/rag/context')
      .send({ graphKey: 'large', query: 'refund ledger' })
      .then((response) => response);
    expect(await healthAnswersDuring(app, retrieving)).toBeGreaterThan(2);
    const context = (await retrieving).body;
    expect(context.context.relevantNodes.length).toBeGreaterThan(0);
  });

  it('keeps answering while a 10,000-node body with an error in every node is refused, and lists the errors', async () => {
    const document = graphOf('refused', 10_000);
    for (const node of document.nodes) (node as unknown as Record<string, unknown>).colour = 'red';
    const importing = request(app.url)
      .put('/api/graphs/refused')
      .send(document)
      .then((response) => response);
    expect(await healthAnswersDuring(app, importing)).toBeGreaterThan(2);
    const refused = await importing;
    expect(refused.status).toBe(400);
    expect(refused.body.details).toHaveLength(10_000);
    expect(refused.body.details[9_999]).toEqual({
      field: 'nodes.9999.colour',
      problems: ['property colour should not exist'],
    });
  });

  it('refuses a graph over GRAPH_MAX_NODES or GRAPH_MAX_EDGES with 413 before validating it', async () => {
    const tooMany = graphOf('too-many', 20_001);
    const nodes = await request(app.url).put('/api/graphs/too-many').send(tooMany).expect(413);
    expect(nodes.body).toEqual({
      statusCode: 413,
      code: 'payload_too_large',
      message: 'The graph has 20001 nodes: at most 20000 can be imported',
      details: { nodes: 20_001, limit: 20_000 },
    });
    const manyEdges = graphOf('many-edges', 3_000);
    manyEdges.edges = manyEdges.nodes.slice(1).map((node, index) => ({
      _key: `e${index}`,
      graphKey: 'many-edges',
      sheet: '0',
      source: `n${index}`,
      sourceHandle: 'R-0',
      target: node._key,
      targetHandle: 'L-0',
    }));
    const edges = await request(app.url).put('/api/graphs/many-edges').send(manyEdges).expect(413);
    expect(edges.body.message).toBe('The graph has 2999 edges: at most 2000 can be imported');
    await request(app.url).get('/api/graphs/too-many').expect(404);
  });
});

import jwt from 'jsonwebtoken';
import request from 'supertest';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphNode } from '../../src/graph/graph.types';
import { TestApp, startTestApp } from '../support/test-app';

const SECRET = 'e2e-changes-secret-of-at-least-32-chars';
const SYNC_TOKEN = 'e2e-sync-token-0123456789';
const GRAPH = nbaWorkflowDemo.graph._key;

const bearer = (claims: object) => `Bearer ${jwt.sign(claims, SECRET, { expiresIn: 600 })}`;
const admin = bearer({ sub: 'admin-1', workspace: 'default', role: 'admin' });
const editor = bearer({ sub: 'editor-1', workspace: 'default', role: 'editor' });
const sync = { Authorization: `Bearer ${SYNC_TOKEN}`, 'X-Workspace': 'default' };

/** A node only the overlay knows, with words found nowhere else in the demo graph. */
const referee: GraphNode = {
  _key: 'referee-assignments',
  graphKey: GRAPH,
  type: 'api-call',
  sheet: '0',
  posX: 900,
  posY: 300,
  data: {
    url: 'https://api.nba-stats.example/v1/referees',
    description: 'Download the referee crew assignments for tonight',
  },
};

describe('POST /api/graphs/:graphKey/changes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET, SYNC_TOKEN, EMBEDDING_PROVIDER: 'none' });
  });
  afterAll(() => app.close());

  const changes = (body: object, headers: Record<string, string> = sync, graph = GRAPH) => {
    const call = request(app.url).post(`/api/graphs/${graph}/changes`).send(body);
    for (const [name, value] of Object.entries(headers)) call.set(name, value);
    return call;
  };
  const ragContext = (query: string) =>
    request(app.url).post('/api/rag/context').set('Authorization', admin).send({ graphKey: GRAPH, query }).expect(200);
  const exported = () => request(app.url).get(`/api/graphs/${GRAPH}`).set('Authorization', admin).expect(200);

  it('shows unsaved state (saved:false) to the AI and in the export, without touching the store, then persists it on save', async () => {
    const before = await ragContext('referee crew assignments');
    expect(before.body.context.relevantNodes.map((node: { _key: string }) => node._key)).not.toContain(
      'referee-assignments',
    );

    const live = await changes({ upsertNodes: [referee], deleteNodes: ['disconnected-note'], saved: false }).expect(
      202,
    );
    expect(live.body).toEqual({
      accepted: true,
      saved: false,
      changes: { upsertNodes: 1, deleteNodes: 1, upsertEdges: 0, deleteEdges: 0 },
      overlayEntries: 2,
      embeddingCandidates: 0,
    });

    // The same question again: the cached context was dropped, the overlay node is found first.
    const after = await ragContext('referee crew assignments');
    expect(after.body.context.retrieval.cacheHit).toBe(false);
    expect(after.body.context.relevantNodes[0]).toMatchObject({ _key: 'referee-assignments', origin: 'search' });
    const document = await exported();
    expect(document.body.nodes.map((node: GraphNode) => node._key)).toContain('referee-assignments');
    expect(document.body.nodes.map((node: GraphNode) => node._key)).not.toContain('disconnected-note');

    const saved = await changes({ upsertNodes: [referee], deleteNodes: ['disconnected-note'], saved: true }).expect(
      202,
    );
    expect(saved.body).toMatchObject({ accepted: true, saved: true, overlayEntries: 0, embeddingCandidates: 1 });

    // Persisted: a fresh instance on the same data directory (with no overlay) sees it.
    await app.close({ keepData: true });
    app = await startTestApp({
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      SYNC_TOKEN,
      EMBEDDING_PROVIDER: 'none',
      DATA_DIR: app.dataDir,
    });
    const reloaded = await exported();
    expect(reloaded.body.nodes.find((node: GraphNode) => node._key === 'referee-assignments')).toEqual(referee);
    expect(reloaded.body.nodes.map((node: GraphNode) => node._key)).not.toContain('disconnected-note');
  });

  it('invalidates the retrieval cache when saved changes land', async () => {
    const query = 'free throw percentage leaders';
    const first = await ragContext(query);
    const cached = await ragContext(query);
    expect(cached.body.context.retrieval.cacheHit).toBe(true);
    const sortStats = nbaWorkflowDemo.nodes.find((node) => node._key === 'sort-stats') as GraphNode;
    const edited = { ...sortStats, data: { top: 5, metric: 'free throw percentage leaders' } };
    await changes({ upsertNodes: [edited], saved: true }).expect(202);
    const fresh = await ragContext(query);
    expect(fresh.body.context.retrieval.cacheHit).toBe(false);
    expect(fresh.body.context.relevantNodes[0]._key).toBe('sort-stats');
    expect(first.body.context.relevantNodes[0]?._key).not.toBe('sort-stats');
  });

  it('accepts an admin JWT as well as the sync token', async () => {
    await changes({ deleteEdges: ['no-such-edge'], saved: false }, { Authorization: admin }).expect(202);
    await changes({ deleteEdges: ['no-such-edge'], saved: true }, { Authorization: admin }).expect(202);
  });

  it.each([
    ['no token', {}, 401, 'unauthorized'],
    [
      'a wrong sync token',
      { Authorization: `Bearer ${SYNC_TOKEN}-wrong`, 'X-Workspace': 'default' },
      401,
      'unauthorized',
    ],
    ['the sync token without X-Workspace', { Authorization: `Bearer ${SYNC_TOKEN}` }, 400, 'bad_request'],
    ['an editor JWT', { Authorization: editor }, 403, 'forbidden'],
    [
      'the sync token for a workspace without this graph',
      { Authorization: `Bearer ${SYNC_TOKEN}`, 'X-Workspace': 'globex' },
      404,
      'not_found',
    ],
  ])('refuses %s', async (_name, headers, status, code) => {
    const response = await changes({ deleteNodes: ['root'], saved: false }, headers as Record<string, string>).expect(
      status,
    );
    expect(response.body).toMatchObject({ statusCode: status, code });
    const root = (await exported()).body.nodes.map((node: GraphNode) => node._key);
    expect(root).toContain('root');
  });

  it('answers 404 for an unknown graph and 400 for unknown fields or a missing saved flag', async () => {
    await changes({ saved: false }, sync, 'no-such-graph').expect(404);
    const unknown = await changes({ saved: false, upsertNode: [] }).expect(400);
    expect(unknown.body.code).toBe('bad_request');
    await changes({ deleteNodes: ['root'] }).expect(400);
    await changes({ upsertNodes: [{ ...referee, colour: 'red' }], saved: false }).expect(400);
  });

  it('takes bodies larger than the default 64 KB limit (a sync batch of big nodes)', async () => {
    const big = { ...referee, _key: 'big-node', process: `// ${'x'.repeat(200_000)}` };
    await changes({ upsertNodes: [big], saved: false }).expect(202);
    await changes({ deleteNodes: ['big-node'], saved: true }).expect(202);
  });
});

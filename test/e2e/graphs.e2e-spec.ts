import jwt from 'jsonwebtoken';
import request from 'supertest';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphDocument } from '../../src/graph/graph.types';
import { describeWithSharedFixtures, loadWorkflowFixture } from '../support/shared-fixtures';
import { TestApp, startTestApp } from '../support/test-app';

const byKey = <T extends { _key: string }>(items: T[]): T[] => [...items].sort((a, b) => a._key.localeCompare(b._key));
const DEMO = nbaWorkflowDemo.graph._key;

describeWithSharedFixtures('Graph import and export (HTTP)', () => {
  let app: TestApp;
  const workflow = loadWorkflowFixture('handle-gdpr-data-deletion-requests-with-slack.json');
  const workflowKey = workflow.graph._key;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('serves the demo graph on first start', async () => {
    const response = await request(app.url).get(`/api/graphs/${DEMO}`).expect(200);
    expect(response.body.graph).toEqual({ ...nbaWorkflowDemo.graph, workspace: 'default' });
    expect(byKey(response.body.nodes)).toEqual(byKey(nbaWorkflowDemo.nodes));
    expect(response.body.edges).toHaveLength(6);
    expect(response.body.nodeConfigs).toHaveLength(4);
  });

  it('imports a real workflow and reads it back as sent', async () => {
    const response = await request(app.url).put(`/api/graphs/${workflowKey}`).send(workflow).expect(200);
    expect(response.body).toEqual({ nodes: workflow.nodes.length, edges: workflow.edges.length });
    const exported = (await request(app.url).get(`/api/graphs/${workflowKey}`).expect(200)).body as GraphDocument;
    expect(exported.graph).toEqual({ ...workflow.graph, workspace: 'default' });
    expect(byKey(exported.nodes)).toEqual(byKey(workflow.nodes));
    expect(byKey(exported.edges)).toEqual(byKey(workflow.edges));
    const usedTypes = new Set(workflow.nodes.map((node) => node.type));
    expect(byKey(exported.nodeConfigs)).toEqual(
      byKey(
        workflow.nodeConfigs
          .filter((config) => usedTypes.has(config._key))
          .map((config) => ({ ...config, workspace: 'default' })),
      ),
    );
  });

  it('refuses an inconsistent graph with every problem listed and keeps the previous one', async () => {
    const before = (await request(app.url).get(`/api/graphs/${DEMO}`).expect(200)).body;
    const broken = structuredClone(nbaWorkflowDemo);
    broken.edges.push({ ...broken.edges[0], _key: 'to-ghost', target: 'ghost' });
    broken.edges[1].sourceHandle = 'L-0';
    broken.nodes[8].sheet = '42';
    const response = await request(app.url).put(`/api/graphs/${DEMO}`).send(broken).expect(400);
    expect(response.body).toMatchObject({ statusCode: 400, code: 'bad_request' });
    expect(response.body.details).toEqual(
      expect.arrayContaining([
        { field: 'nodes[8].sheet', problems: ['sheet "42" is not in graph.sheetsList'] },
        { field: 'edges[1].sourceHandle', problems: ['handle "L-0" of node "root" is not an "out" handle'] },
        { field: 'edges[6].target', problems: ['target node "ghost" does not exist'] },
      ]),
    );
    expect((await request(app.url).get(`/api/graphs/${DEMO}`).expect(200)).body).toEqual(before);
  });

  it('refuses a graph whose key differs from the path', async () => {
    const response = await request(app.url).put('/api/graphs/another-key').send(nbaWorkflowDemo).expect(400);
    expect(response.body.details[0]).toEqual({
      field: 'graph._key',
      problems: ['graph._key "nba-workflow" must equal the graph key of the path "another-key"'],
    });
    // Every node and edge names the other graph too: all listed.
    expect(response.body.details).toHaveLength(1 + nbaWorkflowDemo.nodes.length + nbaWorkflowDemo.edges.length);
    await request(app.url).get('/api/graphs/another-key').expect(404);
  });

  it('rejects unknown fields everywhere except inside data and metadata', async () => {
    const withExtra = (mutate: (document: GraphDocument & Record<string, unknown>) => void) => {
      const document = structuredClone(nbaWorkflowDemo) as GraphDocument & Record<string, unknown>;
      mutate(document);
      return request(app.url).put(`/api/graphs/${DEMO}`).send(document);
    };
    const cases: Array<[string, (document: GraphDocument & Record<string, unknown>) => void]> = [
      ['source', (document) => (document.source = { url: 'x' })],
      ['graph.owner', (document) => (document.graph.owner = 'me')],
      ['nodes.0.color', (document) => (document.nodes[0].color = 'red')],
      [
        'nodes.0.handles.R.point.0.extra',
        (document) => ((document.nodes[0].handles!.R!.point[0] as Record<string, unknown>).extra = 1),
      ],
      ['edges.0.weight', (document) => (document.edges[0].weight = 2)],
      [
        'nodeConfigs.0.node.color',
        (document) => ((document.nodeConfigs[0].node as Record<string, unknown>).color = 'blue'),
      ],
    ];
    for (const [field, mutate] of cases) {
      const response = await withExtra(mutate).expect(400);
      expect({ field, message: response.body.message }).toEqual({
        field,
        message: expect.stringContaining('should not exist'),
      });
    }
    const accepted = await withExtra((document) => {
      document.nodes[2].data = { anything: { goes: ['here', 1] } };
      document.graph.metadata = { free: { form: true } };
      document.graph.version = '2.1.0';
    }).expect(200);
    expect(accepted.body).toEqual({ nodes: 9, edges: 6 });
    const stored = (await request(app.url).get(`/api/graphs/${DEMO}`).expect(200)).body as GraphDocument;
    expect(stored.graph.version).toBe('2.1.0');
    expect(stored.nodes.find((node) => node._key === nbaWorkflowDemo.nodes[2]._key)?.data).toEqual({
      anything: { goes: ['here', 1] },
    });
  });

  it('answers 413 above the import limit and above 64 KB elsewhere', async () => {
    const huge = structuredClone(nbaWorkflowDemo);
    huge.nodes[0].data = { blob: 'x'.repeat(5 * 1024 * 1024 + 10) };
    const tooLarge = await request(app.url)
      .put(`/api/graphs/${DEMO}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(huge))
      .expect(413);
    expect(tooLarge.body).toEqual({ statusCode: 413, code: 'payload_too_large', message: 'Request body is too large' });

    const underImportLimit = structuredClone(nbaWorkflowDemo);
    underImportLimit.nodes[0].data = { blob: 'x'.repeat(200 * 1024) };
    await request(app.url).put(`/api/graphs/${DEMO}`).send(underImportLimit).expect(200);

    const elsewhere = await request(app.url)
      .post('/api/rag/context')
      .send({ graphKey: DEMO, query: 'y'.repeat(70 * 1024) })
      .expect(413);
    expect(elsewhere.body.code).toBe('payload_too_large');
  });

  it('answers 400 to malformed JSON, 404 to an unknown route and an unknown graph, in the error shape', async () => {
    const malformed = await request(app.url)
      .put(`/api/graphs/${DEMO}`)
      .set('Content-Type', 'application/json')
      .send('{"graph": ')
      .expect(400);
    expect(malformed.body).toEqual({ statusCode: 400, code: 'bad_request', message: 'Malformed JSON body' });
    const route = await request(app.url).get('/api/no-such-route').expect(404);
    expect(route.body).toMatchObject({ statusCode: 404, code: 'not_found' });
    const graph = await request(app.url).get('/api/graphs/no-such-graph').expect(404);
    expect(graph.body).toEqual({ statusCode: 404, code: 'not_found', message: 'Graph "no-such-graph" does not exist' });
  });

  it('reports health at /health, outside /api', async () => {
    const response = await request(app.url).get('/health').expect(200);
    expect(response.body).toEqual({
      status: 'ok',
      store: { status: 'up', kind: 'sqlite' },
      uptimeSeconds: expect.any(Number),
      llm: { provider: 'offline', model: 'offline' },
      embeddings: { provider: 'local', model: expect.stringMatching(/^local-(words|hash)-v\d+-\d+$/) },
    });
    await request(app.url).get('/api/health').expect(404);
  });

  it('documents the graph routes in the OpenAPI document', async () => {
    const document = (await request(app.url).get('/docs-json').expect(200)).body;
    expect(Object.keys(document.paths['/api/graphs/{graphKey}'])).toEqual(expect.arrayContaining(['put', 'get']));
    expect(document.paths['/health'].get).toBeDefined();
  });
});

describe('Graph store lifecycle (HTTP)', () => {
  it('does not seed the demo graph with SEED_DEMO=false', async () => {
    const app = await startTestApp({ SEED_DEMO: 'false' });
    try {
      await request(app.url).get(`/api/graphs/${DEMO}`).expect(404);
    } finally {
      await app.close();
    }
  });

  it('keeps the data across a restart on the same DATA_DIR, without re-seeding', async () => {
    const first = await startTestApp();
    const renamed = structuredClone(nbaWorkflowDemo);
    renamed.graph.name = 'Renamed before restart';
    renamed.nodes = renamed.nodes.filter((node) => node.sheet === '1');
    renamed.edges = [];
    await request(first.url).put(`/api/graphs/${DEMO}`).send(renamed).expect(200);
    await first.close({ keepData: true });

    const second = await startTestApp({ DATA_DIR: first.dataDir });
    try {
      const response = await request(second.url).get(`/api/graphs/${DEMO}`).expect(200);
      expect(response.body.graph.name).toBe('Renamed before restart');
      expect(response.body.nodes).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it('scopes imports to the caller’s workspace and requires the admin role', async () => {
    const secret = 'graphs-e2e-secret-of-at-least-32-chars';
    const bearer = (claims: object) => `Bearer ${jwt.sign(claims, secret, { expiresIn: 600 })}`;
    const app = await startTestApp({ AUTH_MODE: 'jwt', JWT_SECRET: secret });
    try {
      const acmeAdmin = bearer({ sub: 'a', workspace: 'acme', role: 'admin' });
      const defaultEditor = bearer({ sub: 'e', workspace: 'default', role: 'editor' });
      const other = structuredClone(nbaWorkflowDemo);
      other.graph.name = 'Acme copy';
      other.graph.workspace = 'default';
      await request(app.url).put(`/api/graphs/${DEMO}`).set('Authorization', defaultEditor).send(other).expect(403);
      await request(app.url).put(`/api/graphs/${DEMO}`).set('Authorization', acmeAdmin).send(other).expect(200);
      const acme = await request(app.url).get(`/api/graphs/${DEMO}`).set('Authorization', acmeAdmin).expect(200);
      expect(acme.body.graph).toMatchObject({ name: 'Acme copy', workspace: 'acme' });
      const original = await request(app.url)
        .get(`/api/graphs/${DEMO}`)
        .set('Authorization', defaultEditor)
        .expect(200);
      expect(original.body.graph).toMatchObject({ name: 'NBA stats workflow', workspace: 'default' });
    } finally {
      await app.close();
    }
  });
});

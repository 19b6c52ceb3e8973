import request from 'supertest';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphEdge, GraphNode } from '../../src/graph/graph.types';
import { TestApp, startTestApp } from '../support/test-app';

const GRAPH = nbaWorkflowDemo.graph._key;
const node = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  _key: key,
  graphKey: GRAPH,
  type: 'log-node',
  sheet: '0',
  posX: 0,
  posY: 0,
  ...extra,
});
const edge = (key: string, source: string, target: string, extra: Partial<GraphEdge> = {}): GraphEdge => ({
  _key: key,
  graphKey: GRAPH,
  sheet: '0',
  source,
  sourceHandle: 'R-0',
  target,
  targetHandle: 'L-0',
  ...extra,
});

/**
 * The change feed applies the graph import's integrity rules (docs/live-overlay.md): what it accepts,
 * live or saved, always exports as a graph that PUT /api/graphs/:graphKey accepts back.
 */
describe('POST /api/graphs/:graphKey/changes (integrity)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ EMBEDDING_PROVIDER: 'none' });
  });
  afterAll(() => app.close());
  afterEach(async () => {
    // Each test starts from the stored demo graph with an empty overlay.
    await request(app.url).put(`/api/graphs/${GRAPH}`).send(nbaWorkflowDemo).expect(200);
  });

  const changes = (body: object) => request(app.url).post(`/api/graphs/${GRAPH}/changes`).send(body);
  /** The export must be importable as it is: the property the feed's checks keep. */
  const expectExportImportable = async () => {
    const exported = (await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200)).body;
    await request(app.url).put(`/api/graphs/${GRAPH}`).send(exported).expect(200);
  };

  it.each([false, true])(
    'refuses an edge whose target does not exist (saved: %s), with the import message, and changes nothing',
    async (saved) => {
      const response = await changes({ upsertEdges: [edge('to-ghost', 'fetch-api', 'ghost')], saved }).expect(400);
      expect(response.body).toMatchObject({
        code: 'bad_request',
        message: `The changes to graph "${GRAPH}" break its integrity: 1 problem(s)`,
        details: [{ field: 'upsertEdges.0.target', problems: ['target node "ghost" does not exist'] }],
      });
      const exported = (await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200)).body;
      expect(exported.edges.map((item: GraphEdge) => item._key)).not.toContain('to-ghost');
    },
  );

  it('lists every problem: missing source, wrong handle direction, unknown handle, unknown sheet', async () => {
    const response = await changes({
      upsertNodes: [node('on-sheet-9', { sheet: '9' })],
      upsertEdges: [
        edge('a', 'nobody', 'error-handler'),
        edge('b', 'fetch-api', 'error-handler', { sourceHandle: 'L-0' }),
        edge('c', 'fetch-api', 'error-handler', { targetHandle: 'T-7' }),
        edge('d', 'fetch-api', 'error-handler', { sheet: '9' }),
      ],
      saved: false,
    }).expect(400);
    expect(response.body.details).toEqual([
      { field: 'upsertNodes.0.sheet', problems: ['sheet "9" is not in graph.sheetsList'] },
      { field: 'upsertEdges.0.source', problems: ['source node "nobody" does not exist'] },
      { field: 'upsertEdges.1.sourceHandle', problems: ['handle "L-0" of node "fetch-api" is not an "out" handle'] },
      { field: 'upsertEdges.2.targetHandle', problems: ['node "error-handler" has no handle "T-7"'] },
      { field: 'upsertEdges.3.sheet', problems: ['sheet "9" is not in graph.sheetsList'] },
    ]);
  });

  it('accepts an edge to a node created in the same batch, or earlier in the overlay, and the export stays importable', async () => {
    await changes({
      upsertNodes: [node('notify')],
      upsertEdges: [edge('errors-to-notify', 'error-handler', 'notify')],
      saved: false,
    }).expect(202);
    await changes({ upsertNodes: [node('archive')], saved: false }).expect(202);
    await changes({ upsertEdges: [edge('notify-to-archive', 'notify', 'archive')], saved: false }).expect(202);
    await expectExportImportable();
  });

  it('refuses an edge to a node the overlay deleted, or that the same batch deletes', async () => {
    await changes({ deleteNodes: ['sort-stats'], saved: false }).expect(202);
    const toDeleted = await changes({
      upsertEdges: [edge('to-sorted', 'fetch-api', 'sort-stats')],
      saved: false,
    }).expect(400);
    expect(toDeleted.body.details).toEqual([
      { field: 'upsertEdges.0.target', problems: ['target node "sort-stats" does not exist'] },
    ]);
    const sameBatch = await changes({
      deleteNodes: ['display-html'],
      upsertEdges: [edge('to-html', 'fetch-api', 'display-html')],
      saved: false,
    }).expect(400);
    expect(sameBatch.body.details[0].problems).toEqual(['target node "display-html" does not exist']);
    await expectExportImportable();
  });

  it('refuses to save an edge whose target only the overlay knows: saved changes land on the store', async () => {
    await changes({ upsertNodes: [node('draft')], saved: false }).expect(202);
    const response = await changes({ upsertEdges: [edge('to-draft', 'error-handler', 'draft')], saved: true }).expect(
      400,
    );
    expect(response.body.details).toEqual([
      { field: 'upsertEdges.0.target', problems: ['target node "draft" does not exist'] },
    ]);
    // Saved together with its target, it is fine.
    await changes({
      upsertNodes: [node('draft')],
      upsertEdges: [edge('to-draft', 'error-handler', 'draft')],
      saved: true,
    }).expect(202);
    await expectExportImportable();
  });
});

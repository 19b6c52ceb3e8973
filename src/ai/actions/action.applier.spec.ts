import { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProposedAction } from '../../conversation/proposed-action';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import { SqliteGraphStore } from '../../graph/sqlite/sqlite-graph.store';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { ActionApplier, CheckedAction } from './action.applier';
import { ActionConverter } from './action.converter';

describe(ActionApplier.name, () => {
  let dataDir: string;
  let db: Database;
  let graph: MutableGraphDataSource;
  let changed: Array<[string, string]>;
  const logged: Array<Record<string, unknown>> = [];

  beforeAll(() => setLogSink((entry) => logged.push(entry)));
  afterAll(() => resetLogSink());
  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'action-applier-'));
    db = openSqliteDatabase(dataDir);
    const store = new SqliteGraphStore(db);
    await store.importGraph(DEMO_WORKSPACE, structuredClone(nbaWorkflowDemo));
    graph = store.forWorkspace(DEMO_WORKSPACE);
    changed = [];
    logged.length = 0;
  });
  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const applier = (mode: 'server' | 'client') =>
    new ActionApplier({ mode, graphChanged: (graphKey, workspace) => changed.push([graphKey, workspace]) });
  const checked = (proposedAction: ProposedAction, toolCallId = 'call_1'): CheckedAction => ({
    toolCallId,
    proposedAction,
    preview: new ActionConverter(nbaWorkflowDemo.nodeConfigs).convert(proposedAction, DEMO_GRAPH_KEY, '0', toolCallId),
  });
  const createLogNode = checked({
    type: 'create_node',
    payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
    reason: 'Log the fetch errors',
  });

  it('applies the preview to the graph with HITL_APPLY=server, and says the graph changed', async () => {
    await expect(applier('server').apply(createLogNode, graph, DEMO_GRAPH_KEY)).resolves.toEqual({
      status: 'applied',
      appliedBy: 'server',
    });
    expect(await graph.getNodeByKey(DEMO_GRAPH_KEY, 'log-errors')).toMatchObject({
      type: 'log-node',
      posX: 820,
      posY: 300,
    });
    expect(changed).toEqual([[DEMO_GRAPH_KEY, DEMO_WORKSPACE]]);
  });

  it('changes nothing here with HITL_APPLY=client: the caller applies it', async () => {
    await expect(applier('client').apply(createLogNode, graph, DEMO_GRAPH_KEY)).resolves.toEqual({
      status: 'applied',
      appliedBy: 'client',
    });
    expect(await graph.getNodeByKey(DEMO_GRAPH_KEY, 'log-errors')).toBeNull();
    expect(changed).toEqual([[DEMO_GRAPH_KEY, DEMO_WORKSPACE]]);
  });

  it('reports a proposal the graph has moved on from as failed, with the reason, and changes nothing', async () => {
    await graph.deleteNode(DEMO_GRAPH_KEY, 'filter-active');
    const moveGone = checked(
      { type: 'move_node', payload: { nodeKey: 'filter-active', posX: 1, posY: 2 }, reason: 'tidy' },
      'call_2',
    );
    const application = await applier('server').apply(moveGone, graph, DEMO_GRAPH_KEY);
    expect(application).toEqual({ status: 'failed', reason: expect.stringContaining('filter-active') });
    expect(logged).toContainEqual(
      expect.objectContaining({
        event: 'proposal_apply_failed',
        graphKey: DEMO_GRAPH_KEY,
        code: 'not_found',
        toolCallId: 'call_2',
      }),
    );
    const taken = checked({
      type: 'create_node',
      payload: { nodeKey: 'root', typeKey: 'log-node', sheet: '0', posX: 0, posY: 0 },
      reason: 'again',
    });
    await expect(applier('server').apply(taken, graph, DEMO_GRAPH_KEY)).resolves.toMatchObject({ status: 'failed' });
    expect(await graph.getNodeByKey(DEMO_GRAPH_KEY, 'root')).toMatchObject({ type: 'starter' });
  });

  it('throws what is not an outdated proposal (the store is down), without saying the graph changed', async () => {
    const failing: MutableGraphDataSource = Object.assign(Object.create(graph) as MutableGraphDataSource, {
      applyChanges: () => Promise.reject(new Error('disk I/O error')),
    });
    await expect(applier('server').apply(createLogNode, failing, DEMO_GRAPH_KEY)).rejects.toThrow('disk I/O error');
    expect(changed).toEqual([]);
  });
});

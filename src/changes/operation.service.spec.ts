import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ActionConversionResult } from '../conversation/action-conversion-result';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import type { GraphChangeEvent } from '../graph/graph-change.event';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { LiveOverlayRegistry } from '../graph/overlay/live-overlay.registry';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../observability/logger';
import type { OperationRepository } from './operation.repository';
import { ApplyMode, OperationService, operationIdOf, ProposalDecision } from './operation.service';
import { emptyChanges } from './operation';
import { SqliteOperationRepository } from './sqlite/sqlite-operation.repository';

const GRAPH = nbaWorkflowDemo.graph._key;
const WORKSPACE = 'default';
const THREAD = 'ai_0test';

describe(OperationService.name, () => {
  let dataDir: string;
  let db: Database;
  let graphs: SqliteGraphStore;
  let repository: OperationRepository;
  let overlays: LiveOverlayRegistry;
  let notified: GraphChangeEvent[];
  let operations: OperationService;

  beforeAll(() => configureLogging({ level: 'error' }));
  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'change-operations-'));
    db = openSqliteDatabase(dataDir);
    graphs = new SqliteGraphStore(db);
    await graphs.importGraph(WORKSPACE, nbaWorkflowDemo);
    repository = new SqliteOperationRepository(db, graphs);
    overlays = new LiveOverlayRegistry();
    const notifier = new GraphChangeNotifier();
    notified = [];
    notifier.subscribe((event) => notified.push(event));
    operations = new OperationService(
      repository,
      graphs,
      new GraphDataSourceFactory(graphs, overlays, notifier),
      notifier,
    );
  });
  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const store = () => graphs.forWorkspace(WORKSPACE);
  const createLog: ActionConversionResult = {
    ...emptyChanges('0'),
    nodesToCreate: [{ _key: 'log-errors', graphKey: GRAPH, type: 'log-node', sheet: '0', posX: 1, posY: 2 }],
    edgesToCreate: [
      {
        _key: 'to-log',
        graphKey: GRAPH,
        sheet: '0',
        source: 'fetch-api',
        sourceHandle: 'R-1',
        target: 'log-errors',
        targetHandle: 'L-0',
      },
    ],
  };
  const decision = async (
    toolCallId: string,
    changes: ActionConversionResult,
    mode: ApplyMode = 'server',
  ): Promise<ProposalDecision> => {
    const [basis] = await operations.basesOf(WORKSPACE, GRAPH, [changes]);
    return {
      operationId: operationIdOf(THREAD, toolCallId),
      workspace: WORKSPACE,
      graphKey: GRAPH,
      threadId: THREAD,
      toolCallId,
      actor: { userId: 'ada', role: 'editor', via: 'approval' },
      changes,
      basis,
      mode,
    };
  };

  it('applies a decision once: a retry finds it recorded and answers it, writing nothing again', async () => {
    const decided = await decision('call_1', createLog);
    const first = await operations.apply(decided);
    const retry = await operations.apply(decided);
    expect(first).toMatchObject({ replayed: false, record: { status: 'applied', operationId: `${THREAD}:call_1` } });
    expect(retry).toEqual({ replayed: true, record: first.record });
    expect((await store().getNodes(GRAPH)).filter((node) => node._key === 'log-errors')).toHaveLength(1);
    expect(notified).toEqual([{ kind: 'stored', workspace: WORKSPACE, graphKey: GRAPH, nodeKeys: ['log-errors'] }]);
    expect(first.record.inverse).toMatchObject({ nodeKeysToDelete: ['log-errors'], edgeKeysToDelete: ['to-log'] });
    expect(first.record.touched.map((item) => `${item.kind}:${item.key}`)).toEqual(['node:log-errors', 'edge:to-log']);
  });

  it('answers a stale proposal, stored or live, with what changed, and applies nothing', async () => {
    const update: ActionConversionResult = {
      ...emptyChanges('0'),
      instructions: [{ nodeKey: 'fetch-api', op: 'set', path: ['data', 'timeoutMs'], value: 9 }],
    };
    const stored = await decision('call_stored', update);
    await store().updateNode(GRAPH, { ...(await store().getNodeByKey(GRAPH, 'fetch-api'))!, posX: 77 });
    expect((await operations.apply(stored)).record).toMatchObject({
      status: 'stale',
      outcome: { changed: [{ kind: 'node', key: 'fetch-api', change: 'modified' }] },
    });

    const live = await decision('call_live', update);
    overlays.apply(WORKSPACE, GRAPH, {
      upsertNodes: [{ ...(await store().getNodeByKey(GRAPH, 'fetch-api'))!, posY: 5 }],
      deleteNodes: [],
      upsertEdges: [],
      deleteEdges: [],
    });
    expect((await operations.apply(live)).record.status).toBe('stale');
    expect((await store().getNodeByKey(GRAPH, 'fetch-api'))?.data).not.toMatchObject({ timeoutMs: 9 });
  });

  it('plans again when the stored documents moved between its plan and its transaction', async () => {
    const move: ActionConversionResult = {
      ...emptyChanges('0'),
      instructions: [{ nodeKey: 'root', op: 'set', path: ['posX'], value: 500 }],
    };
    const decided = { ...(await decision('call_moved', move)), basis: null };
    const commit = repository.commit.bind(repository);
    let interfered = false;
    repository.commit = async (write) => {
      if (!interfered) {
        interfered = true;
        await store().updateNode(GRAPH, { ...(await store().getNodeByKey(GRAPH, 'root'))!, posY: 999 });
      }
      return commit(write);
    };
    const { record } = await operations.apply(decided);
    expect(record.status).toBe('applied');
    expect(await store().getNodeByKey(GRAPH, 'root')).toMatchObject({ posX: 500, posY: 999 });
    // The inverse puts back what the write replaced: the human's posY stays.
    expect(record.inverse.instructions).toEqual([
      { nodeKey: 'root', op: 'set', path: ['posX'], value: expect.any(Number) },
    ]);
  });

  it('lets the first decision win: a rejection after an approval answers the approval, and the other way round', async () => {
    await operations.apply(await decision('call_first', createLog));
    const rejection = {
      operationId: operationIdOf(THREAD, 'call_first'),
      workspace: WORKSPACE,
      graphKey: GRAPH,
      threadId: THREAD,
      toolCallId: 'call_first',
      actor: { userId: 'bob', role: 'editor' as const, via: 'approval' as const },
      sheetId: '0',
    };
    expect(await operations.reject(rejection)).toMatchObject({ replayed: true, record: { status: 'applied' } });
    await operations.reject({
      ...rejection,
      operationId: operationIdOf(THREAD, 'call_second'),
      toolCallId: 'call_second',
    });
    expect((await operations.apply(await decision('call_second', createLog))).record.status).toBe('rejected');
  });

  it('records a change sent to the editor (HITL_APPLY=client) without writing the graph', async () => {
    const { record } = await operations.apply(await decision('call_client', createLog, 'client'));
    expect(record).toMatchObject({ status: 'sent', inverse: { nodeKeysToDelete: ['log-errors'] } });
    expect(await store().getNodeByKey(GRAPH, 'log-errors')).toBeNull();
  });

  it('reverts several operations newest first as one, refusing what a human changed since, and can revert the revert', async () => {
    const created = (await operations.apply(await decision('call_a', createLog))).record;
    const moved = (
      await operations.apply(
        await decision('call_b', {
          ...emptyChanges('0'),
          instructions: [{ nodeKey: 'log-errors', op: 'set', path: ['posX'], value: 40 }],
        }),
      )
    ).record;
    const before = await store().getNodeByKey(GRAPH, 'root');
    const revert = await operations.revert({
      operationId: `${THREAD}:undo:1`,
      workspace: WORKSPACE,
      graphKey: GRAPH,
      threadId: THREAD,
      messageId: 'msg_1',
      actor: { userId: 'ada', role: 'editor', via: 'undo' },
      operations: [moved, created],
      mode: 'server',
    });
    expect(revert.record.outcome).toEqual({ reverted: [moved.operationId, created.operationId], refused: [] });
    expect(await store().getNodeByKey(GRAPH, 'log-errors')).toBeNull();
    expect(await store().getNodeByKey(GRAPH, 'root')).toEqual(before);
    expect((await repository.get(WORKSPACE, created.operationId))?.revertedBy).toBe(`${THREAD}:undo:1`);

    // A human is creating a node of the same key in their editor (live, unsaved).
    overlays.apply(WORKSPACE, GRAPH, {
      upsertNodes: [{ _key: 'log-errors', graphKey: GRAPH, type: 'html', sheet: '0', posX: 3, posY: 3 }],
      deleteNodes: [],
      upsertEdges: [],
      deleteEdges: [],
    });
    const redo = await operations.revert({
      operationId: `${THREAD}:undo:2`,
      workspace: WORKSPACE,
      graphKey: GRAPH,
      threadId: THREAD,
      messageId: 'msg_2',
      actor: { userId: 'ada', role: 'editor', via: 'undo' },
      operations: [revert.record],
      mode: 'server',
    });
    // Putting the node back would overwrite the human's: refused, and the edge that needs it with it.
    expect(redo.record.outcome.refused).toEqual([
      { kind: 'node', key: 'log-errors', reason: 'changed_since', operationId: `${THREAD}:undo:1` },
      { kind: 'edge', key: 'to-log', reason: 'depends_on_refused', operationId: `${THREAD}:undo:1` },
    ]);
    expect(redo.record.outcome.reverted).toEqual([]);
    expect(await store().getNodeByKey(GRAPH, 'log-errors')).toBeNull();
  });
});

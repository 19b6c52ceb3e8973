import { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphChangeEvent } from '../graph-change.event';
import { GraphChangeNotifier } from '../graph-change.notifier';
import { GraphStore } from '../graph-store';
import { GraphNode } from '../graph.types';
import { LiveOverlayRegistry } from '../overlay/live-overlay.registry';
import { LocalLiveOverlayWriter } from '../overlay/local-live-overlay.writer';
import { SqliteGraphStore } from '../sqlite/sqlite-graph.store';
import { GraphChangeFeedService } from './graph-change-feed.service';

const WS = 'default';
const DEMO = nbaWorkflowDemo.graph._key;
const demoNode = (key: string): GraphNode =>
  structuredClone(nbaWorkflowDemo.nodes.find((node) => node._key === key) as GraphNode);

describe(GraphChangeFeedService.name, () => {
  let dataDir: string;
  let db: Database;
  let store: SqliteGraphStore;
  let overlays: LiveOverlayRegistry;
  let events: GraphChangeEvent[];
  let notifier: GraphChangeNotifier;

  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'change-feed-'));
    db = openSqliteDatabase(dataDir);
    store = new SqliteGraphStore(db);
    await store.importGraph(WS, structuredClone(nbaWorkflowDemo));
    overlays = new LiveOverlayRegistry();
    events = [];
    notifier = new GraphChangeNotifier();
    notifier.subscribe((event) => events.push(event));
  });

  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps live state in the overlay only, and says so', async () => {
    const feed = new GraphChangeFeedService(store, overlays, notifier, new LocalLiveOverlayWriter(overlays));
    const moved = { ...demoNode('root'), posX: 1 };
    const outcome = await feed.accept(WS, DEMO, {
      upsertNodes: [moved],
      deleteEdges: ['root-to-fetch-api'],
      saved: false,
    });
    expect(outcome).toEqual({
      accepted: true,
      saved: false,
      changes: { upsertNodes: 1, deleteNodes: 0, upsertEdges: 0, deleteEdges: 1 },
      overlayEntries: 2,
      embeddingCandidates: 0,
    });
    expect(overlays.get(WS, DEMO)?.nodes.get('root')).toEqual(moved);
    expect(await store.forWorkspace(WS).getNodeByKey(DEMO, 'root')).toEqual(demoNode('root'));
    expect(events).toEqual([{ kind: 'live', workspace: WS, graphKey: DEMO }]);
  });

  it('applies saved changes to the embedded store in one transaction and clears those keys from the overlay', async () => {
    const feed = new GraphChangeFeedService(store, overlays, notifier, new LocalLiveOverlayWriter(overlays));
    const edited = { ...demoNode('filter-active'), data: { minGames: 30 } };
    const moved = { ...demoNode('sort-stats'), posY: 999 };
    const created: GraphNode = {
      _key: 'notify',
      graphKey: DEMO,
      type: 'log-node',
      sheet: '0',
      posX: 0,
      posY: 0,
      process: 'console.log(1);',
    };
    const live = {
      upsertNodes: [edited, moved, created],
      deleteNodes: ['disconnected-note'],
      upsertEdges: [
        {
          _key: 'errors-to-notify',
          graphKey: DEMO,
          sheet: '0',
          source: 'error-handler',
          sourceHandle: 'R-0',
          target: 'notify',
          targetHandle: 'L-0',
        },
      ],
      deleteEdges: [],
    };
    await feed.accept(WS, DEMO, { ...live, saved: false });
    await feed.accept(WS, DEMO, { upsertNodes: [{ ...demoNode('root'), posX: 3 }], saved: false });

    const outcome = await feed.accept(WS, DEMO, { ...live, saved: true });

    const stored = store.forWorkspace(WS);
    expect(await stored.getNodeByKey(DEMO, 'filter-active')).toEqual(edited);
    expect(await stored.getNodeByKey(DEMO, 'sort-stats')).toEqual(moved);
    expect(await stored.getNodeByKey(DEMO, 'notify')).toEqual(created);
    expect(await stored.getNodeByKey(DEMO, 'disconnected-note')).toBeNull();
    expect((await stored.getEdgesOfNode(DEMO, 'notify', 'in')).map((edge) => edge._key)).toEqual(['errors-to-notify']);
    // Only the unsaved edit of root is left.
    expect([...(overlays.get(WS, DEMO)?.nodes.keys() ?? [])]).toEqual(['root']);
    expect(outcome.overlayEntries).toBe(1);
    expect(outcome.embeddingCandidates).toBe(2);
    expect(events.at(-1)).toEqual({
      kind: 'stored',
      workspace: WS,
      graphKey: DEMO,
      nodeKeys: ['filter-active', 'notify'],
      deletedNodeKeys: ['disconnected-note'],
    });
  });

  it('changes nothing when a saved change is invalid (an edge to a node that does not exist)', async () => {
    const feed = new GraphChangeFeedService(store, overlays, notifier, new LocalLiveOverlayWriter(overlays));
    const before = await store.exportGraph(WS, DEMO);
    await expect(
      feed.accept(WS, DEMO, {
        upsertNodes: [{ ...demoNode('root'), posX: 1 }],
        upsertEdges: [
          {
            _key: 'dangling',
            graphKey: DEMO,
            sheet: '0',
            source: 'root',
            sourceHandle: 'R-0',
            target: 'ghost',
            targetHandle: 'L-0',
          },
        ],
        saved: true,
      }),
    ).rejects.toMatchObject({ code: 'bad_request' });
    expect(await store.exportGraph(WS, DEMO)).toEqual(before);
    expect(events).toEqual([]);
  });

  it('on a store it does not own, only clears the overlay and hands every upserted node to the write path', async () => {
    const applyChanges = jest.fn();
    // The embedded store posing as one the service does not own (ArangoDB), with writes watched.
    const readOnly: GraphStore = Object.assign(Object.create(store) as GraphStore, {
      kind: 'arango',
      supportsImport: false,
      forWorkspace: (workspace: string) =>
        Object.assign(Object.create(store.forWorkspace(workspace)), { applyChanges }),
    });
    const feed = new GraphChangeFeedService(readOnly, overlays, notifier, new LocalLiveOverlayWriter(overlays));
    await feed.accept(WS, DEMO, { upsertNodes: [demoNode('root')], deleteNodes: ['return'], saved: false });
    const outcome = await feed.accept(WS, DEMO, {
      upsertNodes: [demoNode('root')],
      deleteNodes: ['return'],
      saved: true,
    });
    expect(applyChanges).not.toHaveBeenCalled();
    expect(overlays.get(WS, DEMO)).toBeUndefined();
    expect(outcome.embeddingCandidates).toBe(1);
    expect(events.at(-1)).toEqual({
      kind: 'stored',
      workspace: WS,
      graphKey: DEMO,
      nodeKeys: ['root'],
      deletedNodeKeys: ['return'],
    });
  });

  it('answers not_found for a graph of another workspace, saved or not', async () => {
    const feed = new GraphChangeFeedService(store, overlays, notifier, new LocalLiveOverlayWriter(overlays));
    await expect(feed.accept('globex', DEMO, { deleteNodes: ['root'], saved: false })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(feed.accept(WS, 'ghost', { deleteNodes: ['root'], saved: true })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(overlays.stats().graphs).toBe(0);
  });

  it('serializes saves of one graph, so concurrent saves both land', async () => {
    const feed = new GraphChangeFeedService(store, overlays, notifier, new LocalLiveOverlayWriter(overlays));
    const first: GraphNode = { _key: 'one', graphKey: DEMO, type: 'filter', sheet: '0', posX: 0, posY: 0 };
    const second: GraphNode = { ...first, _key: 'two' };
    await Promise.all([
      feed.accept(WS, DEMO, { upsertNodes: [first], saved: true }),
      feed.accept(WS, DEMO, { upsertNodes: [second, { ...first, posX: 4 }], saved: true }),
    ]);
    const stored = store.forWorkspace(WS);
    expect(await stored.getNodeByKey(DEMO, 'two')).toEqual(second);
    expect((await stored.getNodeByKey(DEMO, 'one'))?.posX).toBe(4);
  });
});

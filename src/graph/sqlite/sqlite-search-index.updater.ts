import type { Database } from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { Logger } from '../../observability/logger';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { EventLoopSlicer } from '../event-loop.slicer';
import { NodeSearchIndex } from '../search/node-search.index';
import { runStepsInSlices, Stepwise } from '../search/stepwise';
import { decodeDocument } from './sqlite-graph.codec';
import { NodeRow, SqliteGraphStatements } from './sqlite-graph.statements';
import { OffThreadIndexBuilds } from './sqlite-index-build.worker';
import { BuiltSearchIndex } from './sqlite-index.builder';
import { INCREMENTAL_MIN_NODES, SqliteNodeChangeLog } from './sqlite-node-change.log';

/** A graph's search index as this process keeps it, and the graph revision it reflects. */
export interface TrackedSearchIndex {
  index: NodeSearchIndex;
  revision: number;
  /** graph_nodes row id of each indexed node: tells a node changed in place from one deleted and created again. */
  rowIds: Map<string, number>;
}

export type SearchIndexBuildReason = 'first_use' | 'unrecorded_changes' | 'many_changes' | 'compaction';

/** Rows read per page of a rebuild. */
const PAGE_ROWS = 1_000;
/** Rebuilds one update may run when writes keep coming in meanwhile, before it serves what it has. */
const MAX_REBUILDS_PER_UPDATE = 2;
/**
 * Nodes re-indexed in place on the event loop, at most, when the graph's builds run off it: beyond,
 * the worker rebuilds (tokenizing is tens of microseconds a node, and a catch-up is not sliced).
 */
export const MAX_NODES_APPLIED_IN_PLACE = 256;

const logger = new Logger('graph');

/**
 * Keeps graphs' BM25 indexes current without rebuilding them after every write. Each write records
 * the node keys it touched under the revision it produced (graph_node_changes, written by
 * SqliteGraphWriter in the same transaction), so this process, or any other sharing the file,
 * catches up by re-indexing just those nodes: a one-node write costs one node, not the graph
 * (~2 s at 20,000 nodes). A full build happens on first use, when a revision in between has no
 * record (import, node-config change, pruned history), when many nodes changed, or when removed
 * nodes have left too many holes. Either way the index answers exactly as a fresh build would.
 *
 * With `offThread`, a large graph's index is not built here but in the index build worker: on first
 * use from the graph's latest snapshot when there is one (then caught up like any index), else built
 * from the file (and snapshotted by the worker); this thread only unpacks it. A build the worker
 * cannot do (it failed, or the graph is small) runs here in slices.
 */
export class SqliteSearchIndexUpdater {
  constructor(
    private readonly db: Database,
    private readonly statements: SqliteGraphStatements,
    private readonly changes: SqliteNodeChangeLog,
    private readonly offThread: OffThreadIndexBuilds | null = null,
  ) {}

  /**
   * The index of graph `graphId` as of its revision now. `current` is updated in place when it can be
   * (in one read transaction, so the revision, the recorded changes and the node documents are of one
   * state of the file); otherwise the index is rebuilt in pages with turns of the event loop between
   * them (rebuildInPages), then brought up to date with what changed meanwhile. `configs` gives the
   * workspace's node configs (type names, descriptions).
   */
  async update(
    graphId: number,
    graphKey: string,
    current: TrackedSearchIndex | null,
    configs: () => NodeTypeConfig[],
  ): Promise<TrackedSearchIndex> {
    let tracked = current;
    for (let rebuilds = 0; ; rebuilds += 1) {
      const outcome = this.catchUp(graphId, graphKey, tracked, configs);
      if (!('rebuild' in outcome)) return outcome;
      // Writes kept coming in faster than a rebuild: serve the latest build; its revision says it is behind, so the next search catches up.
      if (tracked && rebuilds >= MAX_REBUILDS_PER_UPDATE) return tracked;
      tracked =
        (await this.buildOffThread(graphId, graphKey, outcome.rebuild, tracked === null)) ??
        (await this.rebuildInPages(graphId, graphKey, configs(), outcome.rebuild));
    }
  }

  /** Whether this graph's builds run in the worker (it has a worker and the graph is large). */
  buildsOffThread(graphId: number): boolean {
    const offThread = this.offThread;
    return offThread !== null && (this.statements.nodeCountById.get(graphId)?.count ?? 0) >= offThread.minNodes;
  }

  /**
   * The index from the worker (a snapshot first when `fromSnapshot`), unpacked here; null when the
   * graph is built in this thread (no worker, a small graph) or the worker failed.
   */
  private async buildOffThread(
    graphId: number,
    graphKey: string,
    reason: SearchIndexBuildReason,
    fromSnapshot: boolean,
  ): Promise<TrackedSearchIndex | null> {
    const offThread = this.offThread;
    if (!offThread || !this.buildsOffThread(graphId)) return null;
    const started = performance.now();
    try {
      const built =
        (fromSnapshot ? await offThread.worker.run({ kind: 'searchSnapshot', graphId }) : null) ??
        (await offThread.worker.run({ kind: 'search', graphId, snapshot: true }));
      return built ? await adoptSearchIndex(built, graphKey, reason, started) : null;
    } catch (error) {
      logger.warn('search_index_worker_failed', {
        graphKey,
        error: error instanceof Error ? error.message : String(error),
      });
      return null;
    }
  }

  /** Brings `current` up to the graph's revision in place, or says why it must be rebuilt. Synchronous, in one read transaction. */
  private catchUp(
    graphId: number,
    graphKey: string,
    current: TrackedSearchIndex | null,
    configs: () => NodeTypeConfig[],
  ): TrackedSearchIndex | { rebuild: SearchIndexBuildReason } {
    return this.db.transaction((): TrackedSearchIndex | { rebuild: SearchIndexBuildReason } => {
      const revision = this.statements.graphRevisionsById.get(graphId)?.revision ?? 0;
      if (current && current.revision === revision) return current;
      if (!current) return { rebuild: 'first_use' };

      const changed = this.changes.nodeKeysChanged(graphId, current.revision, revision);
      if (changed === null) return { rebuild: 'unrecorded_changes' };
      if (
        !SqliteNodeChangeLog.worthApplying(changed.size, current.index.size) ||
        this.offThreadInstead(changed.size, current)
      )
        return { rebuild: 'many_changes' };
      const started = performance.now();
      try {
        this.apply(current, graphId, changed, configs());
      } catch (error) {
        // Half-applied: never serve it. A build from the file is the state of truth.
        logger.warn('search_index_update_failed', {
          graphKey,
          error: error instanceof Error ? error.message : String(error),
        });
        return { rebuild: 'unrecorded_changes' };
      }
      if (current.index.removedCount > Math.max(INCREMENTAL_MIN_NODES, current.index.size / 4))
        return { rebuild: 'compaction' };
      logger.debug('search_index_updated', {
        graphKey,
        fromRevision: current.revision,
        toRevision: revision,
        nodes: changed.size,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      });
      current.revision = revision;
      return current;
    })();
  }

  /** A catch-up of so many nodes belongs in the worker: the index is of a graph built there. */
  private offThreadInstead(changed: number, current: TrackedSearchIndex): boolean {
    return (
      this.offThread !== null && current.index.size >= this.offThread.minNodes && changed > MAX_NODES_APPLIED_IN_PLACE
    );
  }

  /**
   * Brings the changed nodes to their stored state. Document order is row order (what a fresh build
   * uses): a node whose row is the same is re-indexed in place; a new row (a created node, or one
   * deleted and created again) comes after every row the index holds, as SQLite gives a new row an
   * id above every existing one.
   */
  private apply(tracked: TrackedSearchIndex, graphId: number, changed: Set<string>, configs: NodeTypeConfig[]): void {
    const configByType = new Map(configs.map((config) => [config._key, config]));
    const rows = new Map(
      this.statements.nodeRowsByKeys.all(graphId, JSON.stringify([...changed])).map((row) => [row.key, row]),
    );
    const created: NodeRow[] = [];
    for (const key of changed) {
      const row = rows.get(key);
      const known = tracked.rowIds.get(key);
      if (row && known === row.id) {
        const node = decodeDocument<GraphNode>(row.document);
        tracked.index.replace(node, configByType.get(node.type));
        continue;
      }
      if (known !== undefined) {
        tracked.index.remove(key);
        tracked.rowIds.delete(key);
      }
      if (row) created.push(row);
    }
    created.sort((left, right) => left.id - right.id);
    for (const row of created) {
      const node = decodeDocument<GraphNode>(row.document);
      tracked.index.append(node, configByType.get(node.type));
      tracked.rowIds.set(row.key, row.id);
    }
  }

  /**
   * A fresh index of the graph, read in pages of PAGE_ROWS rows in row order (the order a build
   * uses) and indexed in slices of the event loop (EventLoopSlicer): 50,000 nodes take over a second
   * of CPU, which must not stall every other request. It carries the revision read before the first
   * page, so what changed while it was being built is applied afterwards from the change log (a
   * node seen in its new state is then simply re-indexed as it is).
   */
  private async rebuildInPages(
    graphId: number,
    graphKey: string,
    configs: NodeTypeConfig[],
    reason: SearchIndexBuildReason,
  ): Promise<TrackedSearchIndex> {
    const started = performance.now();
    const revision = this.statements.graphRevisionsById.get(graphId)?.revision ?? 0;
    const configByType = new Map(configs.map((config) => [config._key, config]));
    const index = NodeSearchIndex.build([], configs);
    const rowIds = new Map<string, number>();
    const slicer = new EventLoopSlicer();
    let pages = 0;
    for (let after = 0; ; pages += 1) {
      const rows = this.statements.nodeRowsPage.all(graphId, after, PAGE_ROWS);
      for (const row of rows) {
        // Deleted and created again between two pages: the catch-up that follows settles it.
        if (rowIds.has(row.key)) continue;
        const node = decodeDocument<GraphNode>(row.document);
        index.append(node, configByType.get(node.type));
        rowIds.set(row.key, row.id);
        await slicer.maybeYield();
      }
      if (rows.length < PAGE_ROWS) break;
      after = rows[rows.length - 1].id;
    }
    logger.info('search_index_built', {
      graphKey,
      nodes: index.size,
      reason,
      source: 'this_thread',
      pages: pages + 1,
      durationMs: Math.round(performance.now() - started),
    });
    return { index, revision, rowIds };
  }
}

/** A packed index from the worker (built, or read from a snapshot) as this thread keeps it, unpacked in slices of the event loop. */
export async function adoptSearchIndex(
  built: BuiltSearchIndex,
  graphKey: string,
  reason: SearchIndexBuildReason | 'import',
  started: number,
): Promise<TrackedSearchIndex> {
  const unpacking = performance.now();
  const { index, rowIds } = await runStepsInSlices(unpackingTracked(built));
  logger.info('search_index_built', {
    graphKey,
    nodes: index.size,
    reason,
    source: built.source === 'snapshot' ? 'snapshot' : 'worker',
    revision: built.revision,
    workerMs: Math.round(built.durationMs),
    unpackMs: Math.round((performance.now() - unpacking) * 10) / 10,
    durationMs: Math.round(performance.now() - started),
  });
  return { index, revision: built.revision, rowIds };
}

function* unpackingTracked(built: BuiltSearchIndex): Stepwise<{ index: NodeSearchIndex; rowIds: Map<string, number> }> {
  const index = yield* NodeSearchIndex.unpacking(built.packed);
  const rowIds = new Map<string, number>();
  const keys = built.packed.nodeKeys;
  for (let doc = 0; doc < keys.length; doc += 1) {
    const key = keys[doc];
    if (key !== null) rowIds.set(key, built.rowIds[doc]);
    if (doc % 4_096 === 4_095) yield;
  }
  return { index, rowIds };
}

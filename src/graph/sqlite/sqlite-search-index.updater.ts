import type { Database } from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { Logger } from '../../observability/logger';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { NodeSearchIndex } from '../search/node-search.index';
import { decodeDocument } from './sqlite-graph.codec';
import { NodeRow, SqliteGraphStatements } from './sqlite-graph.statements';
import { INCREMENTAL_MIN_NODES, SqliteNodeChangeLog } from './sqlite-node-change.log';

/** A graph's search index as this process keeps it, and the graph revision it reflects. */
export interface TrackedSearchIndex {
  index: NodeSearchIndex;
  revision: number;
  /** graph_nodes row id of each indexed node: tells a node changed in place from one deleted and created again. */
  rowIds: Map<string, number>;
}

export type SearchIndexBuildReason = 'first_use' | 'unrecorded_changes' | 'many_changes' | 'compaction';

const logger = new Logger('graph');

/**
 * Keeps graphs' BM25 indexes current without rebuilding them after every write. Each write records
 * the node keys it touched under the revision it produced (graph_node_changes, written by
 * SqliteGraphWriter in the same transaction), so this process, or any other sharing the file,
 * catches up by re-indexing just those nodes: a one-node write costs one node, not the graph
 * (~2 s at 20,000 nodes). A full build happens on first use, when a revision in between has no
 * record (import, node-config change, pruned history), when many nodes changed, or when removed
 * nodes have left too many holes. Either way the index answers exactly as a fresh build would.
 */
export class SqliteSearchIndexUpdater {
  constructor(
    private readonly db: Database,
    private readonly statements: SqliteGraphStatements,
    private readonly changes: SqliteNodeChangeLog,
  ) {}

  /**
   * The index of graph `graphId` as of its revision now. In one read transaction, so the revision,
   * the recorded changes and the node documents are of one state of the file. `current` is updated
   * in place when it can be; `configs` gives the workspace's node configs (type names, descriptions).
   */
  update(graphId: number, graphKey: string, current: TrackedSearchIndex | null, configs: () => NodeTypeConfig[]): TrackedSearchIndex {
    return this.db.transaction((): TrackedSearchIndex => {
      const revision = this.statements.graphRevisionsById.get(graphId)?.revision ?? 0;
      if (current && current.revision === revision) return current;
      if (!current) return this.build(graphId, graphKey, revision, configs(), 'first_use');

      const changed = this.changes.nodeKeysChanged(graphId, current.revision, revision);
      if (changed === null) return this.build(graphId, graphKey, revision, configs(), 'unrecorded_changes');
      if (!SqliteNodeChangeLog.worthApplying(changed.size, current.index.size)) {
        return this.build(graphId, graphKey, revision, configs(), 'many_changes');
      }
      const started = performance.now();
      try {
        this.apply(current, graphId, changed, configs());
      } catch (error) {
        // Half-applied: never serve it. A build from the file is the state of truth.
        logger.warn('search_index_update_failed', { graphKey, error: error instanceof Error ? error.message : String(error) });
        return this.build(graphId, graphKey, revision, configs(), 'unrecorded_changes');
      }
      if (current.index.removedCount > Math.max(INCREMENTAL_MIN_NODES, current.index.size / 4)) {
        return this.build(graphId, graphKey, revision, configs(), 'compaction');
      }
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

  /**
   * Brings the changed nodes to their stored state. Document order is row order (what a fresh build
   * uses): a node whose row is the same is re-indexed in place; a new row (a created node, or one
   * deleted and created again) comes after every row the index holds, as SQLite gives a new row an
   * id above every existing one.
   */
  private apply(tracked: TrackedSearchIndex, graphId: number, changed: Set<string>, configs: NodeTypeConfig[]): void {
    const configByType = new Map(configs.map((config) => [config._key, config]));
    const rows = new Map(this.statements.nodeRowsByKeys.all(graphId, JSON.stringify([...changed])).map((row) => [row.key, row]));
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

  private build(graphId: number, graphKey: string, revision: number, configs: NodeTypeConfig[], reason: SearchIndexBuildReason): TrackedSearchIndex {
    const started = performance.now();
    const rows = this.statements.nodeRowsOfGraph.all(graphId);
    const rowIds = new Map<string, number>();
    for (const row of rows) rowIds.set(row.key, row.id);
    const index = NodeSearchIndex.build(
      rows.map((row) => decodeDocument<GraphNode>(row.document)),
      configs,
    );
    logger.info('search_index_built', { graphKey, nodes: rows.length, reason, durationMs: Math.round(performance.now() - started) });
    return { index, revision, rowIds };
  }
}

import type { Database } from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { Logger } from '../../observability/logger';
import { EventLoopSlicer } from '../event-loop.slicer';
import { runStepsInSlices } from '../search/stepwise';
import { VectorEntry, VectorIndex } from '../search/vector.index';
import { decodeVector } from './sqlite-graph.codec';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { OffThreadIndexBuilds } from './sqlite-index-build.worker';
import { SqliteNodeChangeLog } from './sqlite-node-change.log';

/** A graph's vector index of one model as this process keeps it, and the graph state it reflects. */
export interface TrackedVectorIndex {
  index: VectorIndex;
  revision: number;
  embeddingRevision: number;
}

/** `not_updatable`: built from vectors of several dimensions, or a vector of another dimension arrived. */
export type VectorIndexBuildReason = 'first_use' | 'unrecorded_changes' | 'many_changes' | 'not_updatable';

/** Rows read per page of a rebuild (also the size of the first build of a large index). */
const PAGE_ROWS = 1_000;
/** Rebuilds one update may run when writes keep coming in meanwhile, before it serves what it has. */
const MAX_REBUILDS_PER_UPDATE = 2;
/**
 * Vectors set in place on the event loop, at most, when the graph's builds run off it (a few
 * microseconds each: reading, normalizing, quantizing); beyond, the worker rebuilds. Whatever the
 * index's size: a graph being embedded grows from an empty index by catch-ups.
 */
export const MAX_VECTORS_APPLIED_IN_PLACE = 1_024;

const logger = new Logger('graph');

/**
 * Keeps graphs' vector indexes current without rebuilding them after every write (0.75 s at 20,000
 * nodes × 384 dimensions, 2.3 s at 1,536). A node's vector changes through a write of the graph (a
 * content change drops it, a deletion removes it, a created node may carry one: graph_node_changes) or
 * an embedding write (graph_embedding_changes); both record the node keys, so this process, or any
 * other sharing the file, catches up by re-reading just those nodes' vectors of the index's model. A
 * full build happens on first use, when a revision in between has no record (import, node-config
 * change, pruned history), when many nodes changed, or when the index cannot be updated in place.
 * Either way the index answers exactly as a fresh build would (VectorIndex: ties by row id).
 *
 * With `offThread`, a large graph's index is built in the index build worker and only unpacked
 * here, and a catch-up of more than MAX_VECTORS_APPLIED_IN_PLACE vectors is a rebuild there.
 */
export class SqliteVectorIndexUpdater {
  constructor(
    private readonly db: Database,
    private readonly statements: SqliteGraphStatements,
    private readonly changes: SqliteNodeChangeLog,
    private readonly offThread: OffThreadIndexBuilds | null = null,
  ) {}

  /**
   * The index of `model`'s vectors of graph `graphId` as of the graph's state now. `current` is updated
   * in place when it can be (in one read transaction, so the revisions, the recorded changes and the
   * vectors are of one state of the file); otherwise the index is rebuilt in pages with turns of the
   * event loop between them (rebuildInPages), then brought up to date with what changed meanwhile.
   */
  async update(
    graphId: number,
    graphKey: string,
    model: string,
    current: TrackedVectorIndex | null,
  ): Promise<TrackedVectorIndex> {
    let tracked = current;
    for (let rebuilds = 0; ; rebuilds += 1) {
      const outcome = this.catchUp(graphId, graphKey, model, tracked);
      if (!('rebuild' in outcome)) return outcome;
      // Writes kept coming in faster than a rebuild: serve the latest build; its revisions say it is behind, so the next search catches up.
      if (tracked && rebuilds >= MAX_REBUILDS_PER_UPDATE) return tracked;
      tracked =
        (await this.buildOffThread(graphId, graphKey, model, outcome.rebuild)) ??
        (await this.rebuildInPages(graphId, graphKey, model, outcome.rebuild));
    }
  }

  /** The index from the worker, unpacked here; null when it is built in this thread (no worker, a small graph) or the worker failed. */
  private async buildOffThread(
    graphId: number,
    graphKey: string,
    model: string,
    reason: VectorIndexBuildReason,
  ): Promise<TrackedVectorIndex | null> {
    const offThread = this.offThread;
    if (!offThread || (this.statements.nodeCountById.get(graphId)?.count ?? 0) < offThread.minNodes) return null;
    const started = performance.now();
    try {
      const built = await offThread.worker.run({ kind: 'vectors', graphId, model });
      if (!built) return null;
      const unpacking = performance.now();
      const index = await runStepsInSlices(VectorIndex.unpacking(built.packed));
      logger.info('vector_index_built', {
        graphKey,
        model,
        nodes: index.size,
        reason,
        source: 'worker',
        workerMs: Math.round(built.durationMs),
        unpackMs: Math.round((performance.now() - unpacking) * 10) / 10,
        durationMs: Math.round(performance.now() - started),
      });
      return { index, revision: built.revision, embeddingRevision: built.embeddingRevision };
    } catch (error) {
      logger.warn('vector_index_worker_failed', {
        graphKey,
        model,
        error: error instanceof Error ? error.message : String(error),
      });
      return null;
    }
  }

  /** Brings `current` up to the graph's state in place, or says why it must be rebuilt. Synchronous, in one read transaction. */
  private catchUp(
    graphId: number,
    graphKey: string,
    model: string,
    current: TrackedVectorIndex | null,
  ): TrackedVectorIndex | { rebuild: VectorIndexBuildReason } {
    return this.db.transaction((): TrackedVectorIndex | { rebuild: VectorIndexBuildReason } => {
      const state = this.statements.graphRevisionsById.get(graphId) ?? { revision: 0, embeddingRevision: 0 };
      if (current && current.revision === state.revision && current.embeddingRevision === state.embeddingRevision)
        return current;
      if (!current) return { rebuild: 'first_use' };
      if (!current.index.updatable) return { rebuild: 'not_updatable' };

      const written = this.changes.nodeKeysChanged(graphId, current.revision, state.revision);
      const embedded = this.changes.vectorKeysSet(graphId, current.embeddingRevision, state.embeddingRevision);
      if (written === null || embedded === null) return { rebuild: 'unrecorded_changes' };
      const changed = new Set([...written, ...embedded]);
      const tooMany = this.offThread
        ? changed.size > MAX_VECTORS_APPLIED_IN_PLACE
        : !SqliteNodeChangeLog.worthApplying(changed.size, current.index.size);
      if (tooMany) return { rebuild: 'many_changes' };

      const started = performance.now();
      let applied: boolean;
      try {
        applied = this.apply(current.index, graphId, model, changed);
      } catch (error) {
        // Half-applied: never serve it. A build from the file is the state of truth.
        logger.warn('vector_index_update_failed', {
          graphKey,
          model,
          error: error instanceof Error ? error.message : String(error),
        });
        return { rebuild: 'unrecorded_changes' };
      }
      if (!applied) return { rebuild: 'not_updatable' };
      logger.debug('vector_index_updated', {
        graphKey,
        model,
        fromRevision: current.revision,
        toRevision: state.revision,
        fromEmbeddingRevision: current.embeddingRevision,
        toEmbeddingRevision: state.embeddingRevision,
        nodes: changed.size,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      });
      current.revision = state.revision;
      current.embeddingRevision = state.embeddingRevision;
      return current;
    })();
  }

  /**
   * Brings the changed nodes' vectors to their stored state: a stored vector of the model is set
   * (in place, or added), anything else (node deleted, vector dropped or of another model) is removed.
   * False when a vector does not fit the index (another dimension): the caller rebuilds.
   */
  private apply(index: VectorIndex, graphId: number, model: string, changed: Set<string>): boolean {
    const rows = new Map(
      this.statements.vectorsOfModelByKeys
        .all(graphId, model, JSON.stringify([...changed]))
        .map((row) => [row.key, row]),
    );
    for (const key of changed) {
      const row = rows.get(key);
      if (!row) index.remove(key);
      else if (!index.set(key, decodeVector(row.embedding), row.id)) return false;
    }
    return true;
  }

  /**
   * A fresh index of the model's vectors, read in pages of PAGE_ROWS rows in row order and decoded in
   * slices of the event loop (EventLoopSlicer): 50,000 vectors of 512 floats are 100 MB to read and
   * seconds of CPU, which must not stall every other request. The index is built from the first
   * rows, then grows entry by entry (`set`, exact as a build); when a vector cannot be set (another
   * dimension), the rest is built in one go as a plain build would. It carries the revisions read
   * before the first page: what changed meanwhile is applied afterwards from the change logs.
   */
  private async rebuildInPages(
    graphId: number,
    graphKey: string,
    model: string,
    reason: VectorIndexBuildReason,
  ): Promise<TrackedVectorIndex> {
    const started = performance.now();
    const state = this.statements.graphRevisionsById.get(graphId) ?? { revision: 0, embeddingRevision: 0 };
    const slicer = new EventLoopSlicer();
    const seen = new Set<string>();
    let index: VectorIndex | null = null;
    let first: VectorEntry[] = [];
    let settable = true;
    for (let after = 0; settable;) {
      const rows = this.statements.vectorsOfModelPage.all(graphId, model, after, PAGE_ROWS);
      for (const row of rows) {
        // Deleted and created again between two pages: the catch-up that follows settles it.
        if (seen.has(row.key)) continue;
        seen.add(row.key);
        const vector = decodeVector(row.embedding);
        if (index) {
          settable = index.set(row.key, vector, row.id);
        } else {
          first.push({ key: row.key, vector, order: row.id });
          if (first.length >= PAGE_ROWS) {
            index = VectorIndex.build(first);
            first = [];
            settable = index.updatable;
          }
        }
        if (!settable) break;
        await slicer.maybeYield();
      }
      if (rows.length < PAGE_ROWS) break;
      after = rows[rows.length - 1].id;
    }
    if (!index) index = VectorIndex.build(first);
    // Vectors of several dimensions: which one wins depends on the first entry, so only a plain build over all of them is exact.
    else if (!settable) index = VectorIndex.build(await this.allEntries(graphId, model, slicer));
    logger.info('vector_index_built', {
      graphKey,
      model,
      nodes: index.size,
      reason,
      source: 'this_thread',
      durationMs: Math.round(performance.now() - started),
    });
    return { index, revision: state.revision, embeddingRevision: state.embeddingRevision };
  }

  /** Every stored vector of the model, read in pages with turns of the event loop between them. */
  private async allEntries(graphId: number, model: string, slicer: EventLoopSlicer): Promise<VectorEntry[]> {
    const entries = new Map<string, VectorEntry>();
    for (let after = 0; ;) {
      const rows = this.statements.vectorsOfModelPage.all(graphId, model, after, PAGE_ROWS);
      for (const row of rows)
        if (!entries.has(row.key))
          entries.set(row.key, { key: row.key, vector: decodeVector(row.embedding), order: row.id });
      if (rows.length < PAGE_ROWS) return [...entries.values()];
      after = rows[rows.length - 1].id;
      await slicer.maybeYield();
    }
  }
}

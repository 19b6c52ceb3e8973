import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { DEFAULT_SLICE_MS, EventLoopSlicer } from '../event-loop.slicer';
import { validateGraphImportInSlices } from '../graph-import.validator';
import { GraphDocument, GraphNode, NodeTypeConfig } from '../graph.types';
import { hasNodeContentChanged } from '../node-content';
import { decodeDocument, vectorCarriedBy } from './sqlite-graph.codec';
import { insertEdgeRow, insertNodeRow } from './sqlite-graph.rows';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { inImmediateTransaction } from './sqlite-immediate.transaction';

/** Rows written (or deleted) per transaction: a few milliseconds each, so other writers get the lock in between. */
const ROWS_PER_TRANSACTION = 250;
/** A staged import whose row was not touched for this long belongs to a process that died: its rows are removed. */
export const ABANDONED_STAGING_MS = 10 * 60_000;

/** Staged and retired graph rows have keys starting with "/", which no graph key may hold (graph-key.rule.ts). */
const STAGING_PREFIX = '/import/';
const RETIRED_PREFIX = '/retired/';

const logger = new Logger('graph');

/**
 * Indexing an import while it is staged (SqliteGraphStore: the index build worker reads the staged
 * rows as they are committed), so the graph is searchable about when it is swapped in.
 */
export interface StagedImportIndexing {
  /**
   * The staged graph row `stagingId` exists; `configs` are the workspace's node configs as they will
   * be after the swap. Null: nothing to do for this import.
   */
  begin(target: {
    workspace: string;
    graphKey: string;
    stagingId: number;
    nodes: number;
    configs: NodeTypeConfig[];
  }): StagedIndexBuild | null;
}

export interface StagedIndexBuild {
  /** More node rows of the staged graph are committed. */
  rowsCommitted(): void;
  /**
   * Every row is staged: the build finishes before the swap, so the graph comes in searchable.
   * Resolves when it is done, or after a bound (the build then goes on after the swap).
   */
  finish(): Promise<void>;
  /** The graph was swapped in at `revision` (called in the same turn as the swap's commit). */
  swappedIn(revision: number): void;
  /** The import failed: the staged rows are going away. */
  abort(): void;
}

/**
 * Imports (replaces) a graph of the embedded store without holding the event loop or the write lock
 * for the whole graph: 50,000 nodes written in one transaction held both for most of a second.
 * The new graph is staged under a row of its own, invisible to readers (its
 * key starts with "/"), in transactions of ROWS_PER_TRANSACTION rows with turns of the event loop in
 * between; then ONE short transaction swaps it in (the old row is renamed away, the staged row takes
 * the key, node configs are upserted); then the old graph's rows are deleted the same way, page by
 * page. Readers see the old graph, then the new one, never a mix: the swap is atomic. With a
 * StagedImportIndexing, the new graph's search index is built from the staged rows as they are
 * written, and the swap waits (bounded) for it to be finished. A node whose
 * key existed and whose content did not change keeps its stored vector; one that carries its own
 * `embedding` + `embeddingModel` is stored with it. The new graph has a new row id, so every
 * process's in-memory indexes of the old one are dropped. Rows left by a process that died mid-way
 * are removed when a store opens the file (removeLeftovers).
 */
export class SqliteGraphImporter {
  constructor(
    private readonly db: Database,
    private readonly statements: SqliteGraphStatements,
    private readonly sliceMs = DEFAULT_SLICE_MS,
    private readonly indexing: StagedImportIndexing | null = null,
  ) {}

  async importGraph(workspace: string, input: GraphDocument): Promise<{ nodes: number; edges: number }> {
    const graphKey = input.graph?._key;
    const { document, problems } = await validateGraphImportInSlices(
      typeof graphKey === 'string' ? graphKey : '',
      input,
      new EventLoopSlicer(this.sliceMs),
    );
    if (problems.length > 0) {
      throw AppError.badRequest(
        `The graph "${String(graphKey)}" cannot be imported: ${problems.length} integrity problem(s)`,
        problems,
      );
    }
    const started = performance.now();
    const graph = { ...document.graph, _key: graphKey, workspace };
    const stagingId = this.write(() =>
      Number(
        this.statements.insertGraph.run(
          workspace,
          `${STAGING_PREFIX}${randomUUID()}`,
          JSON.stringify(graph),
          Date.now(),
          Date.now(),
        ).lastInsertRowid,
      ),
    );
    const build =
      this.indexing?.begin({
        workspace,
        graphKey,
        stagingId,
        nodes: document.nodes.length,
        configs: this.configsAfterImport(workspace, document.nodeConfigs),
      }) ?? null;
    let retiredId: number | null;
    try {
      await this.stage(workspace, graphKey, stagingId, document, build);
      await build?.finish();
      const swapped = this.write(() => this.swapIn(workspace, graphKey, stagingId, JSON.stringify(graph), document));
      retiredId = swapped.retiredId;
      build?.swappedIn(swapped.revision);
    } catch (error) {
      build?.abort();
      await this.removeGraph(stagingId).catch(() => undefined);
      throw error;
    }
    // The import is done; a failure to clean up is removed when a store next opens the file.
    if (retiredId !== null)
      await this.removeGraph(retiredId).catch((error: unknown) =>
        logger.warn('graph_import_cleanup_failed', { graphKey, error: String(error) }),
      );
    logger.info('graph_imported', {
      workspace,
      graphKey,
      nodes: document.nodes.length,
      edges: document.edges.length,
      durationMs: Math.round(performance.now() - started),
    });
    return { nodes: document.nodes.length, edges: document.edges.length };
  }

  /**
   * Removes what a process that died mid-import left: staged graphs not touched for
   * ABANDONED_STAGING_MS (a younger one may belong to a live process importing now), and retired
   * graphs. Synchronous: called once when a store opens the file.
   */
  removeLeftovers(now = Date.now()): void {
    for (const row of this.statements.stagedGraphs.all()) {
      const abandoned = row.graphKey.startsWith(RETIRED_PREFIX) || now - row.updatedAt > ABANDONED_STAGING_MS;
      if (!abandoned) continue;
      while (this.write(() => this.deletePage(row.id)) > 0);
      logger.warn('graph_import_leftover_removed', { graphId: row.id });
    }
  }

  /** The workspace's node configs once `imported` are upserted (what the swap will make them). */
  private configsAfterImport(workspace: string, imported: NodeTypeConfig[]): NodeTypeConfig[] {
    const configs = new Map(
      this.statements.nodeConfigs
        .all(workspace)
        .map((row) => decodeDocument<NodeTypeConfig>(row.document))
        .map((config) => [config._key, config]),
    );
    for (const config of imported) configs.set(config._key, { ...config, workspace });
    return [...configs.values()];
  }

  /** Writes the nodes and edges under the staged row, a few hundred per transaction. */
  private async stage(
    workspace: string,
    graphKey: string,
    stagingId: number,
    document: GraphDocument,
    build: StagedIndexBuild | null,
  ): Promise<void> {
    const slicer = new EventLoopSlicer(this.sliceMs);
    for (let from = 0; from < document.nodes.length; from += ROWS_PER_TRANSACTION) {
      const nodes = document.nodes.slice(from, from + ROWS_PER_TRANSACTION);
      this.write(() => {
        // Read in the same transaction as the writes: the vectors kept are those of the graph as it is now.
        const live = this.statements.graphRef.get(workspace, graphKey);
        const previous = new Map(
          (live
            ? this.statements.storedNodesByKeys.all(live.id, JSON.stringify(nodes.map((node) => node._key)))
            : []
          ).map((row) => [row.key, row]),
        );
        for (const node of nodes) {
          const before = previous.get(node._key);
          const vector =
            before?.embedding && before.model
              ? { blob: before.embedding, model: before.model, hash: before.hash }
              : null;
          const kept =
            vector && !hasNodeContentChanged(decodeDocument<GraphNode>(before!.document), node) ? vector : null;
          insertNodeRow(this.statements, stagingId, node, vectorCarriedBy(node) ?? kept);
        }
        // Alive: a store opening the file now does not take this import for a dead process's leftover.
        this.statements.touchGraph.run(Date.now(), stagingId);
      });
      build?.rowsCommitted();
      await slicer.maybeYield();
    }
    for (let from = 0; from < document.edges.length; from += ROWS_PER_TRANSACTION) {
      const edges = document.edges.slice(from, from + ROWS_PER_TRANSACTION);
      this.write(() => {
        for (const edge of edges) insertEdgeRow(this.statements, stagingId, edge);
        this.statements.touchGraph.run(Date.now(), stagingId);
      });
      await slicer.maybeYield();
    }
  }

  /**
   * The swap, in one transaction: the staged row becomes the graph, the old one (if any) is renamed
   * away. Returns the old row's id and the graph's revision after the swap.
   */
  private swapIn(
    workspace: string,
    graphKey: string,
    stagingId: number,
    graphDocument: string,
    document: GraphDocument,
  ): { retiredId: number | null; revision: number } {
    const statements = this.statements;
    const now = Date.now();
    const live = statements.graphRef.get(workspace, graphKey);
    if (live) statements.renameGraph.run(`${RETIRED_PREFIX}${live.id}`, now, live.id);
    // Above the old revision: (id, revision) never names two states, and a revision never goes back.
    statements.promoteStagedGraph.run(graphKey, graphDocument, (live?.revision ?? 0) + 1, now, stagingId);
    for (const config of document.nodeConfigs) {
      statements.upsertNodeConfig.run(workspace, config._key, JSON.stringify({ ...config, workspace }), now);
    }
    // Node configs feed every graph's search index in the workspace (type names, descriptions).
    if (document.nodeConfigs.length > 0) {
      statements.bumpWorkspaceRevisions.run(now, workspace);
      statements.bumpNodeConfigsRevision.run(workspace);
    }
    return {
      retiredId: live?.id ?? null,
      revision: statements.graphRevisionsById.get(stagingId)?.revision ?? 0,
    };
  }

  /** Deletes a graph row and everything under it, page by page, with turns of the event loop in between. */
  private async removeGraph(graphId: number): Promise<void> {
    const slicer = new EventLoopSlicer(this.sliceMs);
    while (this.write(() => this.deletePage(graphId)) > 0) await slicer.maybeYield();
  }

  /** One page of a graph's removal: edges first, then nodes, then the row itself (its change logs go with it). Rows deleted. */
  private deletePage(graphId: number): number {
    const edges = this.statements.deleteEdgesPage.run(graphId, ROWS_PER_TRANSACTION).changes;
    if (edges > 0) return edges;
    const nodes = this.statements.deleteNodesPage.run(graphId, ROWS_PER_TRANSACTION).changes;
    if (nodes > 0) return nodes;
    return this.statements.deleteGraphRow.run(graphId).changes;
  }

  private write<T>(work: () => T): T {
    return inImmediateTransaction(this.db, work);
  }
}

import type { Database, Statement } from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { Logger } from '../../observability/logger';
import { EventLoopSlicer } from '../event-loop.slicer';
import { exportGraphDocument } from '../graph-document.exporter';
import { GraphStore, NodeEmbeddingWrite, StoreHealth, StoredEmbeddingState } from '../graph-store';
import { GraphDocument, NodeTypeConfig } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { SqliteDecodedDocumentCache } from './sqlite-decoded-document.cache';
import {
  DEFAULT_INDEX_CACHE_MAX_INDEXED_NODES,
  SqliteGraphIndexCache,
  SqliteGraphIndexCacheOptions,
} from './sqlite-graph-index.cache';
import { SqliteGraphDataSource } from './sqlite-graph.data-source';
import { SqliteGraphImporter, StagedImportIndexing } from './sqlite-graph.importer';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { SqliteGraphTransaction, SqliteGraphWriter } from './sqlite-graph.writer';
import { OffThreadIndexBuilds, SqliteIndexBuildWorker } from './sqlite-index-build.worker';
import { SqliteNodeChangeLog } from './sqlite-node-change.log';
import { adoptSearchIndex, SqliteSearchIndexUpdater, TrackedSearchIndex } from './sqlite-search-index.updater';
import { SqliteVectorIndexUpdater } from './sqlite-vector-index.updater';
import { SqliteWalCheckpointHold } from './sqlite-wal-checkpoint.hold';

/** From this many nodes a graph's indexes are built in the worker (below, a build takes a few tens of ms here). */
export const DEFAULT_OFF_THREAD_MIN_NODES = 2_000;
/** How long a search waits for a graph's index being built in the worker before answering from what is ready. */
export const DEFAULT_INDEX_WAIT_MS = 750;
/** The most an import's swap waits for its staged index build (a stuck worker does not hold an import longer). */
export const STAGED_BUILD_MAX_WAIT_MS = 30_000;

export interface SqliteIndexWorkerOptions {
  /** From this many nodes a graph's indexes are built in the worker thread (default DEFAULT_OFF_THREAD_MIN_NODES). */
  minNodes?: number;
  /** SqliteGraphIndexCacheOptions.maxWaitMs (default DEFAULT_INDEX_WAIT_MS). */
  waitMs?: number;
  /** Node options of the thread (tests from the TypeScript sources give their loader). */
  execArgv?: string[];
  idleMs?: number;
}

export interface SqliteGraphStoreOptions {
  /** Which graphs keep their search indexes in memory (least recently searched dropped first beyond these bounds). */
  indexCache?: SqliteGraphIndexCacheOptions;
  /** Longest synchronous stretch of an import between two turns of the event loop (default DEFAULT_SLICE_MS). */
  importSliceMs?: number;
  /**
   * Large graphs' indexes built in a worker thread and their BM25 indexes snapshotted in the file,
   * when this runtime can start the thread (compiled, or with a TypeScript loader in `execArgv`).
   * Absent: every index is built here, in slices.
   */
  indexWorker?: SqliteIndexWorkerOptions;
}

/** Staging transactions (of 250 rows) between two checkpoints of the write-ahead log by the index build worker. */
const STAGED_COMMITS_PER_CHECKPOINT = 8;

/** Embedding states read per statement (a few milliseconds each). */
const EMBEDDING_STATES_PAGE_ROWS = 2_000;

const logger = new Logger('graph');

/**
 * The embedded GraphStore over a migrated better-sqlite3 connection (see openSqliteDatabase).
 * It does not own the connection: whoever opened it closes it (SqlitePersistenceModule, a test);
 * close() only drops the in-memory indexes and decoded documents, and stops the index build worker.
 */
export class SqliteGraphStore implements GraphStore {
  readonly kind = 'sqlite' as const;
  readonly supportsImport = true;

  private readonly statements: SqliteGraphStatements;
  private readonly writer: SqliteGraphWriter;
  private readonly importer: SqliteGraphImporter;
  private readonly indexes: SqliteGraphIndexCache;
  private readonly documents = new SqliteDecodedDocumentCache();
  private readonly walCheckpoints: SqliteWalCheckpointHold;
  private readonly searchIndexes: SqliteSearchIndexUpdater;
  private readonly vectorIndexes: SqliteVectorIndexUpdater;
  private readonly offThread: OffThreadIndexBuilds | null;
  private readonly maxIndexedNodes: number;
  private readonly ping: Statement<[], { ok: number }>;

  constructor(db: Database, options: SqliteGraphStoreOptions = {}) {
    this.statements = new SqliteGraphStatements(db);
    this.writer = new SqliteGraphWriter(db, this.statements);
    this.walCheckpoints = new SqliteWalCheckpointHold(db);
    this.offThread = offThreadBuilds(db, options.indexWorker);
    this.importer = new SqliteGraphImporter(
      db,
      this.statements,
      options.importSliceMs,
      this.offThread ? this.stagedImportIndexing(this.offThread) : null,
    );
    this.importer.removeLeftovers();
    this.indexes = new SqliteGraphIndexCache({
      ...options.indexCache,
      maxWaitMs:
        options.indexCache?.maxWaitMs ??
        (this.offThread ? (options.indexWorker?.waitMs ?? DEFAULT_INDEX_WAIT_MS) : null),
    });
    this.maxIndexedNodes = options.indexCache?.maxIndexedNodes ?? DEFAULT_INDEX_CACHE_MAX_INDEXED_NODES;
    const changes = new SqliteNodeChangeLog(this.statements);
    this.searchIndexes = new SqliteSearchIndexUpdater(db, this.statements, changes, this.offThread);
    this.vectorIndexes = new SqliteVectorIndexUpdater(db, this.statements, changes, this.offThread);
    this.ping = db.prepare('SELECT 1 AS ok');
  }

  /** Whether large graphs' indexes are built in the worker thread. */
  get buildsOffThread(): boolean {
    return this.offThread !== null;
  }

  forWorkspace(workspace: string): MutableGraphDataSource {
    return this.dataSource(workspace);
  }

  /**
   * `work` in one transaction on one graph of the workspace (SqliteGraphWriter.transaction), for the change log
   * (src/changes), which writes its own rows on the same connection. not_found when the graph is not the workspace's.
   */
  transaction<T>(workspace: string, graphKey: string, work: (graph: SqliteGraphTransaction) => T): T {
    return this.writer.transaction(workspace, graphKey, work);
  }

  /** The graph's revision (bumped by every write of its nodes, edges, document or node configs), or null when absent. */
  revision(workspace: string, graphKey: string): number | null {
    return this.statements.graphRef.get(workspace, graphKey)?.revision ?? null;
  }

  async listGraphs(workspace?: string): Promise<Array<{ workspace: string; graphKey: string }>> {
    return workspace === undefined ? this.statements.listGraphs.all() : this.statements.listGraphsOf.all(workspace);
  }

  async hasGraphs(): Promise<boolean> {
    return this.statements.anyGraph.get() !== undefined;
  }

  async importGraph(workspace: string, document: GraphDocument): Promise<{ nodes: number; edges: number }> {
    return this.importer.importGraph(workspace, document);
  }

  async exportGraph(workspace: string, graphKey: string): Promise<GraphDocument | null> {
    return exportGraphDocument(this.forWorkspace(workspace), graphKey);
  }

  /**
   * Read in pages with turns of the event loop between them (the states of 20,000 nodes in one read
   * held it for over 100 ms, right after a large import). Pages of one graph row: a graph imported
   * again meanwhile is the next run's.
   */
  async getEmbeddingStates(workspace: string, graphKey: string): Promise<StoredEmbeddingState[]> {
    const ref = this.statements.graphRef.get(workspace, graphKey);
    if (!ref) return [];
    const states: StoredEmbeddingState[] = [];
    const slicer = new EventLoopSlicer();
    for (let after = 0; ;) {
      const rows = this.statements.embeddingStatesPage.all(ref.id, after, EMBEDDING_STATES_PAGE_ROWS);
      for (const { nodeKey, model, hash } of rows) states.push({ nodeKey, model, hash });
      if (rows.length < EMBEDDING_STATES_PAGE_ROWS) return states;
      after = rows[rows.length - 1].id;
      await slicer.maybeYield();
    }
  }

  async saveEmbeddings(workspace: string, graphKey: string, entries: NodeEmbeddingWrite[]): Promise<void> {
    this.writer.saveEmbeddings(workspace, graphKey, entries);
  }

  /** Builds or loads the graph's BM25 index and its vector index of `vectorModel`; resolves when both are ready. Never throws. */
  async prepareSearch(workspace: string, graphKey: string, vectorModel: string | null): Promise<void> {
    const started = performance.now();
    try {
      if (await this.dataSource(workspace).prepareSearch(graphKey, vectorModel))
        logger.info('search_prepared', { workspace, graphKey, durationMs: Math.round(performance.now() - started) });
    } catch (error) {
      logger.warn('search_prepare_failed', {
        workspace,
        graphKey,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async refreshVectorIndex(workspace: string, graphKey: string, vectorModel: string): Promise<void> {
    const started = performance.now();
    try {
      if (await this.dataSource(workspace).refreshVectorIndex(graphKey, vectorModel))
        logger.debug('vector_index_refreshed', {
          workspace,
          graphKey,
          durationMs: Math.round(performance.now() - started),
        });
    } catch (error) {
      logger.warn('vector_index_refresh_failed', {
        workspace,
        graphKey,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * prepareSearch for the largest graphs, one at a time, the most recently changed first, while the
   * index cache can keep them (each counts its nodes twice: BM25 and vectors). Only when builds run
   * off the event loop: otherwise a graph's first question builds its indexes, as always.
   */
  async prepareLargeGraphs(vectorModel: string | null): Promise<number> {
    if (!this.offThread) return 0;
    let budget = this.maxIndexedNodes;
    let prepared = 0;
    for (const graph of this.statements.graphsOfAtLeast.all(this.offThread.minNodes)) {
      const counted = graph.nodes * (vectorModel ? 2 : 1);
      if (counted > budget) continue;
      budget -= counted;
      await this.prepareSearch(graph.workspace, graph.graphKey, vectorModel);
      prepared += 1;
    }
    return prepared;
  }

  async health(): Promise<StoreHealth> {
    try {
      this.ping.get();
      return { status: 'up', kind: 'sqlite' };
    } catch (error) {
      return { status: 'down', kind: 'sqlite', detail: error instanceof Error ? error.message : String(error) };
    }
  }

  async close(): Promise<void> {
    this.indexes.clear();
    this.documents.clear();
    await this.offThread?.worker.stop();
  }

  private dataSource(workspace: string): SqliteGraphDataSource {
    return new SqliteGraphDataSource(
      workspace,
      this.statements,
      this.writer,
      this.indexes,
      this.documents,
      this.searchIndexes,
      this.vectorIndexes,
    );
  }

  /**
   * An import of a large graph is indexed by the worker while it is staged, and the swap waits for
   * the index (at most STAGED_BUILD_MAX_WAIT_MS): the graph comes in searchable, and the import
   * answers then; the worker checkpoints the write-ahead log before the swap and snapshots the index
   * after it. Past the wait, the build is installed as the
   * new graph's pending index update, which its first searches wait for (RAG_INDEX_WAIT_MS). A build
   * that failed, or used other node configs than the workspace has after the swap (another write
   * changed them meanwhile), gives way to the ordinary first build.
   */
  private stagedImportIndexing(offThread: OffThreadIndexBuilds): StagedImportIndexing {
    const worker = offThread.worker;
    const ignoreFailure = (promise: Promise<unknown>) => void promise.catch(() => undefined);
    return {
      begin: ({ workspace, graphKey, stagingId, nodes, configs }) => {
        if (nodes < offThread.minNodes) return null;
        const started = performance.now();
        // The worker reads the staged rows as they come, so no commit could checkpoint them all: it checkpoints instead.
        const releaseCheckpoints = this.walCheckpoints.hold();
        let commits = 0;
        ignoreFailure(worker.run({ kind: 'stagedBegin', graphId: stagingId, configs }));
        let built: Promise<TrackedSearchIndex | null> | null = null;
        let finished: TrackedSearchIndex | null = null;
        const configsNow = () => this.dataSource(workspace).getNodeConfigsNow();
        return {
          rowsCommitted: () => {
            ignoreFailure(worker.run({ kind: 'stagedRows', graphId: stagingId }));
            commits += 1;
            if (commits % STAGED_COMMITS_PER_CHECKPOINT === 0)
              ignoreFailure(worker.run({ kind: 'checkpoint', graphId: stagingId }));
          },
          abort: () => {
            releaseCheckpoints();
            ignoreFailure(worker.run({ kind: 'stagedAbort', graphId: stagingId }));
          },
          finish: async () => {
            built = worker
              .run({ kind: 'stagedEnd', graphId: stagingId })
              .then((result) => (result ? adoptSearchIndex(result, graphKey, 'import', started) : null))
              .then((tracked) => (finished = tracked))
              .catch((error: unknown) => {
                logger.warn('staged_search_index_failed', { graphKey, error: describeError(error) });
                return null;
              });
            await withinMs(built, STAGED_BUILD_MAX_WAIT_MS);
            // The staged rows sit in the write-ahead log while the build reads them; the first commit after would copy
            // them into the file (a checkpoint of tens of MB, hundreds of ms on the event loop): the worker does it now.
            if (!finished) return;
            const checkpoint = worker.run({ kind: 'checkpoint', graphId: stagingId }).then(
              (frames) => logger.debug('staged_import_checkpointed', { graphKey, ...frames }),
              (error: unknown) =>
                logger.warn('staged_import_checkpoint_failed', { graphKey, error: describeError(error) }),
            );
            await withinMs(checkpoint, STAGED_BUILD_MAX_WAIT_MS);
          },
          swappedIn: (revision) => {
            releaseCheckpoints();
            const ref = { id: stagingId, revision, embeddingRevision: 0 };
            const withConfigs = (tracked: TrackedSearchIndex | null) =>
              tracked && sameSearchConfigs(configs, configsNow()) ? tracked : null;
            const install = (tracked: TrackedSearchIndex | null): Promise<TrackedSearchIndex> => {
              const ready = withConfigs(tracked);
              if (!ready) return this.searchIndexes.update(stagingId, graphKey, null, configsNow);
              ready.revision = revision;
              ignoreFailure(worker.run({ kind: 'stagedSnapshot', graphId: stagingId, revision }));
              return Promise.resolve(ready);
            };
            logger.debug('staged_import_swapped_in', {
              graphKey,
              revision,
              indexReady: finished !== null,
              sinceBeginMs: Math.round(performance.now() - started),
            });
            this.indexes.installSearchBuild(
              workspace,
              graphKey,
              ref,
              finished ? install(finished) : (built ?? Promise.resolve(null)).then(install),
            );
          },
        };
      },
    };
  }
}

/** Resolves when `promise` settles or after `ms`, whichever comes first (never rejects). */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

/** Whether two lists of node configs give nodes the same search text (nodeSearchText: type key, display name, description). */
function sameSearchConfigs(left: NodeTypeConfig[], right: NodeTypeConfig[]): boolean {
  const summary = (configs: NodeTypeConfig[]) =>
    JSON.stringify(
      configs
        .map((config) => [config._key, config.displayName ?? '', config.description ?? ''])
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    );
  return summary(left) === summary(right);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The worker when asked for and this runtime can start it (a file, not an in-memory database). */
function offThreadBuilds(db: Database, options: SqliteIndexWorkerOptions | undefined): OffThreadIndexBuilds | null {
  if (!options || db.memory || (!options.execArgv && !SqliteIndexBuildWorker.isAvailable())) return null;
  return {
    worker: new SqliteIndexBuildWorker(db.name, { execArgv: options.execArgv, idleMs: options.idleMs }),
    minNodes: options.minNodes ?? DEFAULT_OFF_THREAD_MIN_NODES,
  };
}

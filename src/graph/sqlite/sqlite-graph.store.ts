import type { Database, Statement } from 'better-sqlite3';
import { exportGraphDocument } from '../graph-document.exporter';
import { GraphStore, NodeEmbeddingWrite, StoreHealth, StoredEmbeddingState } from '../graph-store';
import { GraphDocument } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { SqliteDecodedDocumentCache } from './sqlite-decoded-document.cache';
import { SqliteGraphIndexCache, SqliteGraphIndexCacheOptions } from './sqlite-graph-index.cache';
import { SqliteGraphDataSource } from './sqlite-graph.data-source';
import { SqliteGraphImporter } from './sqlite-graph.importer';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { SqliteGraphTransaction, SqliteGraphWriter } from './sqlite-graph.writer';
import { SqliteNodeChangeLog } from './sqlite-node-change.log';
import { SqliteSearchIndexUpdater } from './sqlite-search-index.updater';
import { SqliteVectorIndexUpdater } from './sqlite-vector-index.updater';

export interface SqliteGraphStoreOptions {
  /** Which graphs keep their search indexes in memory (least recently searched dropped first beyond these bounds). */
  indexCache?: SqliteGraphIndexCacheOptions;
  /** Longest synchronous stretch of an import between two turns of the event loop (default DEFAULT_SLICE_MS). */
  importSliceMs?: number;
}

/**
 * The embedded GraphStore over a migrated better-sqlite3 connection (see openSqliteDatabase).
 * It does not own the connection: whoever opened it closes it (SqlitePersistenceModule, a test);
 * close() only drops the in-memory indexes and decoded documents.
 */
export class SqliteGraphStore implements GraphStore {
  readonly kind = 'sqlite' as const;
  readonly supportsImport = true;

  private readonly statements: SqliteGraphStatements;
  private readonly writer: SqliteGraphWriter;
  private readonly importer: SqliteGraphImporter;
  private readonly indexes: SqliteGraphIndexCache;
  private readonly documents = new SqliteDecodedDocumentCache();
  private readonly searchIndexes: SqliteSearchIndexUpdater;
  private readonly vectorIndexes: SqliteVectorIndexUpdater;
  private readonly ping: Statement<[], { ok: number }>;

  constructor(db: Database, options: SqliteGraphStoreOptions = {}) {
    this.statements = new SqliteGraphStatements(db);
    this.writer = new SqliteGraphWriter(db, this.statements);
    this.importer = new SqliteGraphImporter(db, this.statements, options.importSliceMs);
    this.importer.removeLeftovers();
    this.indexes = new SqliteGraphIndexCache(options.indexCache);
    const changes = new SqliteNodeChangeLog(this.statements);
    this.searchIndexes = new SqliteSearchIndexUpdater(db, this.statements, changes);
    this.vectorIndexes = new SqliteVectorIndexUpdater(db, this.statements, changes);
    this.ping = db.prepare('SELECT 1 AS ok');
  }

  forWorkspace(workspace: string): MutableGraphDataSource {
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

  async getEmbeddingStates(workspace: string, graphKey: string): Promise<StoredEmbeddingState[]> {
    return this.statements.embeddingStates.all(workspace, graphKey);
  }

  async saveEmbeddings(workspace: string, graphKey: string, entries: NodeEmbeddingWrite[]): Promise<void> {
    this.writer.saveEmbeddings(workspace, graphKey, entries);
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
  }
}

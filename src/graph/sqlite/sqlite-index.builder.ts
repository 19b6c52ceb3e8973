import type { Database } from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { deserialize, serialize } from 'node:v8';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { NODE_SEARCH_INDEX_FORMAT, NodeSearchIndex, PackedNodeSearchIndex } from '../search/node-search.index';
import { PackedVectorIndex, VectorEntry, VectorIndex } from '../search/vector.index';
import { decodeDocument, decodeVector } from './sqlite-graph.codec';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { SqliteSearchSnapshotRepository } from './sqlite-search-snapshot.repository';

/** A graph's BM25 index as built from the file: the revision it reflects and each document's node row id. */
export interface BuiltSearchIndex {
  packed: PackedNodeSearchIndex;
  /** Per document number of `packed`: its node's row id (-1 for a removed document). */
  rowIds: Float64Array;
  revision: number;
  /** How it was made: built from the nodes, or read from a snapshot. */
  source: 'built' | 'snapshot';
  durationMs: number;
}

/** A graph's vector index of one model, and the revisions it reflects. */
export interface BuiltVectorIndex {
  packed: PackedVectorIndex;
  revision: number;
  embeddingRevision: number;
  durationMs: number;
}

/** What a snapshot's payload holds (v8.serialize: typed arrays and strings, no JSON of millions of numbers). */
interface SnapshotPayload {
  packed: PackedNodeSearchIndex;
  rowIds: Float64Array;
}

/** An import being staged whose search index is built as its rows are written (see beginStaged). */
interface StagedBuild {
  index: NodeSearchIndex;
  configs: NodeTypeConfig[];
  configByType: Map<string, NodeTypeConfig>;
  rowIds: number[];
  lastRowId: number;
}

/**
 * Builds graphs' indexes from the embedded store's file, on a connection of its own: the code a
 * worker thread runs (sqlite-index-build.thread.ts), so that the tens of milliseconds per thousand
 * nodes of tokenizing and normalizing never hold the service's event loop. Synchronous: each build
 * reads in ONE read transaction (one state of the file: the revision, the node configs and the rows
 * agree) and returns packed indexes (NodeSearchIndex.pack, VectorIndex.pack) that the caller's
 * thread unpacks without building anything.
 *
 * Search snapshots: a built BM25 index can be stored (saveSearchSnapshot) and read back
 * (loadSearchSnapshot) by any process sharing the file, which then only catches up on the node
 * changes recorded since its revision.
 *
 * Staged builds index an import while it is being written: the importer stages its rows under a
 * graph row of their own (SqliteGraphImporter) and says when more are committed (stagedRowsCommitted);
 * by the time it swaps the graph in, most of the index is built, and endStaged finishes it.
 */
export class SqliteIndexBuilder {
  private readonly staged = new Map<number, StagedBuild>();

  constructor(
    private readonly db: Database,
    private readonly statements: SqliteGraphStatements,
    private readonly snapshots: SqliteSearchSnapshotRepository,
  ) {}

  /** The graph's BM25 index as of now; null when the graph row does not exist. */
  buildSearchIndex(graphId: number): BuiltSearchIndex | null {
    const started = performance.now();
    return this.db.transaction((): BuiltSearchIndex | null => {
      const revisions = this.statements.graphRevisionsById.get(graphId);
      const owner = this.statements.graphWorkspaceById.get(graphId);
      if (!revisions || !owner) return null;
      const build = newStagedBuild(this.workspaceConfigs(owner.workspace));
      indexRows(build, this.statements.nodeRowsPage.iterate(graphId, 0, -1));
      return finish(build, revisions.revision, started);
    })();
  }

  /** The latest snapshot of the graph this code can read; null when there is none. */
  loadSearchSnapshot(graphId: number): BuiltSearchIndex | null {
    const started = performance.now();
    const stored = this.snapshots.latest(graphId, NODE_SEARCH_INDEX_FORMAT);
    if (!stored) return null;
    const payload = deserialize(stored.payload) as SnapshotPayload;
    // Not `instanceof`: what v8.deserialize makes may belong to another realm than this module's (a test's VM context).
    const rowIdsOk = Object.prototype.toString.call(payload?.rowIds) === '[object Float64Array]';
    if (payload?.packed?.format !== NODE_SEARCH_INDEX_FORMAT || !rowIdsOk) return null;
    return {
      packed: payload.packed,
      rowIds: payload.rowIds,
      revision: stored.revision,
      source: 'snapshot',
      durationMs: performance.now() - started,
    };
  }

  /**
   * Stores `built` as the graph's snapshot. Serialize before handing `built`'s buffers to another
   * thread (they are detached then): see serializeSnapshot.
   */
  saveSearchSnapshot(graphId: number, revision: number, payload: Buffer): void {
    this.snapshots.save(graphId, revision, NODE_SEARCH_INDEX_FORMAT, payload);
  }

  /** The snapshot payload of `built` (a copy: `built`'s buffers may be transferred afterwards). */
  serializeSnapshot(built: BuiltSearchIndex): Buffer {
    return serialize({ packed: built.packed, rowIds: built.rowIds } satisfies SnapshotPayload);
  }

  /** The graph's vector index of `model` as of now; null when the graph row does not exist. */
  buildVectorIndex(graphId: number, model: string): BuiltVectorIndex | null {
    const started = performance.now();
    return this.db.transaction((): BuiltVectorIndex | null => {
      const revisions = this.statements.graphRevisionsById.get(graphId);
      if (!revisions) return null;
      const entries: VectorEntry[] = [];
      for (const row of this.statements.vectorsOfModelPage.iterate(graphId, model, 0, -1))
        entries.push({ key: row.key, vector: decodeVector(row.embedding), order: row.id });
      return {
        packed: VectorIndex.build(entries).pack(),
        revision: revisions.revision,
        embeddingRevision: revisions.embeddingRevision,
        durationMs: performance.now() - started,
      };
    })();
  }

  /**
   * Starts indexing the rows staged under graph row `graphId`, as they are committed. `configs` are
   * the workspace's node configs as they will be once the import is swapped in.
   */
  beginStaged(graphId: number, configs: NodeTypeConfig[]): void {
    this.staged.set(graphId, newStagedBuild(configs));
  }

  /** Indexes the rows committed under the staged graph since the last call. */
  stagedRowsCommitted(graphId: number): void {
    const build = this.staged.get(graphId);
    if (!build) return;
    indexRows(build, this.statements.nodeRowsPage.iterate(graphId, build.lastRowId, -1));
  }

  /**
   * The index of the staged graph, swapped in at `revision`. When the workspace's node configs are not
   * the ones it was begun with (another write changed them meanwhile), the graph is indexed again from
   * the file as it is now. Null when no staged build of `graphId` was begun, or the graph is gone.
   */
  endStaged(graphId: number, revision: number): BuiltSearchIndex | null {
    const started = performance.now();
    const build = this.staged.get(graphId);
    this.staged.delete(graphId);
    if (!build) return null;
    const current = this.db.transaction(() => {
      indexRows(build, this.statements.nodeRowsPage.iterate(graphId, build.lastRowId, -1));
      const owner = this.statements.graphWorkspaceById.get(graphId);
      return owner ? this.workspaceConfigs(owner.workspace) : null;
    })();
    if (!current) return null;
    if (!sameSearchConfigs(current, build.configs)) return this.buildSearchIndex(graphId);
    return finish(build, revision, started);
  }

  abortStaged(graphId: number): void {
    this.staged.delete(graphId);
  }

  private workspaceConfigs(workspace: string): NodeTypeConfig[] {
    return this.statements.nodeConfigs.all(workspace).map((row) => decodeDocument<NodeTypeConfig>(row.document));
  }
}

function newStagedBuild(configs: NodeTypeConfig[]): StagedBuild {
  return {
    index: NodeSearchIndex.build([], configs),
    configs,
    configByType: new Map(configs.map((config) => [config._key, config])),
    rowIds: [],
    lastRowId: 0,
  };
}

/** Appends rows in row order (the order a build uses); a key seen before (deleted and staged again) keeps its first place. */
function indexRows(build: StagedBuild, rows: Iterable<{ id: number; key: string; document: string }>): void {
  for (const row of rows) {
    build.lastRowId = row.id;
    if (build.index.has(row.key)) continue;
    const node = decodeDocument<GraphNode>(row.document);
    build.index.append(node, build.configByType.get(node.type));
    build.rowIds.push(row.id);
  }
}

function finish(build: StagedBuild, revision: number, started: number): BuiltSearchIndex {
  return {
    packed: build.index.pack(),
    rowIds: Float64Array.from(build.rowIds),
    revision,
    source: 'built',
    durationMs: performance.now() - started,
  };
}

/** What of the node configs a search index uses (nodeSearchText): type key, display name, description. */
function sameSearchConfigs(left: NodeTypeConfig[], right: NodeTypeConfig[]): boolean {
  const summary = (configs: NodeTypeConfig[]) =>
    JSON.stringify(
      configs
        .map((config) => [config._key, config.displayName ?? '', config.description ?? ''])
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    );
  return summary(left) === summary(right);
}

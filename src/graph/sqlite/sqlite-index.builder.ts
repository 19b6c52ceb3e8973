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
 * once every row is staged, endStaged finishes it, before the graph is swapped in.
 */
export class SqliteIndexBuilder {
  private readonly staged = new Map<number, StagedBuild>();
  /** Staged builds ended, kept for their snapshot until the import is swapped in. */
  private readonly ended = new Map<number, BuiltSearchIndex>();

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
        entries.push({ key: row.key, vector: vectorView(row.embedding), order: row.id });
      return {
        packed: VectorIndex.packEntries(entries),
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
   * The index of the staged graph, every staged row in (revision 0: the caller knows the revision
   * once it swaps the graph in, and checks the node configs then). Kept for its snapshot
   * (stagedSnapshotPayload) until the import ends. Null when no staged build of `graphId` was begun.
   */
  endStaged(graphId: number): BuiltSearchIndex | null {
    const started = performance.now();
    const build = this.staged.get(graphId);
    this.staged.delete(graphId);
    if (!build) return null;
    indexRows(build, this.statements.nodeRowsPage.iterate(graphId, build.lastRowId, -1));
    const built = finish(build, 0, started);
    this.ended.set(graphId, built);
    return built;
  }

  /** The snapshot payload of the staged graph's index, swapped in at `revision`; null when there is none. */
  stagedSnapshotPayload(graphId: number, revision: number): { payload: Buffer; revision: number } | null {
    const built = this.ended.get(graphId);
    this.ended.delete(graphId);
    return built ? { payload: this.serializeSnapshot(built), revision } : null;
  }

  /** The import failed: its staged build goes. */
  abortStaged(graphId: number): void {
    this.staged.delete(graphId);
    this.ended.delete(graphId);
  }

  private workspaceConfigs(workspace: string): NodeTypeConfig[] {
    return this.statements.nodeConfigs.all(workspace).map((row) => decodeDocument<NodeTypeConfig>(row.document));
  }
}

/** The blob's floats, read in place when it is aligned (they are, but for a Buffer from the pool), else copied. */
function vectorView(blob: Buffer): Float32Array {
  return blob.byteOffset % 4 === 0
    ? new Float32Array(blob.buffer, blob.byteOffset, Math.floor(blob.byteLength / 4))
    : decodeVector(blob);
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

import { NodeSearchIndex } from '../search/node-search.index';
import { VectorIndex } from '../search/vector.index';
import { GraphRef } from './sqlite-graph.statements';
import { TrackedSearchIndex } from './sqlite-search-index.updater';

interface CachedIndexes {
  graphId: number;
  /** Carries the revision it reflects; brought up to date by the caller's `update`. */
  search: TrackedSearchIndex | null;
  /** The vector indexes (one per model) are valid for one revision + embeddingRevision. */
  vectorsRevision: number;
  embeddingRevision: number;
  vectors: Map<string, VectorIndex>;
}

/**
 * In-memory search indexes of the most recently searched graphs, keyed by (workspace, graph key).
 * The lexical index is kept across writes and brought up to date by the caller (node by node, see
 * SqliteSearchIndexUpdater); the vector indexes are valid for one `revision` + `embeddingRevision`.
 * The caller reads the graph's current GraphRef (one cheap query per call), so a write by this
 * process or by another one on the same file is seen by the next call. Least recently used graphs
 * are dropped beyond `maxGraphs`.
 */
export class SqliteGraphIndexCache {
  private readonly entries = new Map<string, CachedIndexes>();

  constructor(private readonly maxGraphs = 16) {}

  searchIndex(
    workspace: string,
    graphKey: string,
    ref: GraphRef,
    update: (current: TrackedSearchIndex | null) => TrackedSearchIndex,
  ): NodeSearchIndex {
    const entry = this.entryFor(workspace, graphKey, ref);
    if (!entry.search || entry.search.revision !== ref.revision) entry.search = update(entry.search);
    return entry.search.index;
  }

  vectorIndex(workspace: string, graphKey: string, ref: GraphRef, model: string, build: () => VectorIndex): VectorIndex {
    const entry = this.entryFor(workspace, graphKey, ref);
    if (entry.vectorsRevision !== ref.revision || entry.embeddingRevision !== ref.embeddingRevision) {
      entry.vectors.clear();
      entry.vectorsRevision = ref.revision;
      entry.embeddingRevision = ref.embeddingRevision;
    }
    let index = entry.vectors.get(model);
    if (!index) {
      index = build();
      entry.vectors.set(model, index);
    }
    return index;
  }

  clear(): void {
    this.entries.clear();
  }

  private entryFor(workspace: string, graphKey: string, ref: GraphRef): CachedIndexes {
    const cacheKey = `${workspace}\u0000${graphKey}`;
    let entry = this.entries.get(cacheKey);
    if (entry && entry.graphId !== ref.id) entry = undefined;
    if (!entry) {
      entry = { graphId: ref.id, search: null, vectorsRevision: ref.revision, embeddingRevision: ref.embeddingRevision, vectors: new Map() };
    }
    // Re-inserting moves the entry to the end: Map order is the recency order.
    this.entries.delete(cacheKey);
    this.entries.set(cacheKey, entry);
    while (this.entries.size > this.maxGraphs) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return entry;
  }
}

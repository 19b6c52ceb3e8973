import { NodeSearchIndex } from '../search/node-search.index';
import { VectorIndex } from '../search/vector.index';
import { GraphRef } from './sqlite-graph.statements';
import { TrackedSearchIndex } from './sqlite-search-index.updater';
import { TrackedVectorIndex } from './sqlite-vector-index.updater';

interface CachedIndexes {
  graphId: number;
  /** Carries the revision it reflects; brought up to date by the caller's `update`. */
  search: TrackedSearchIndex | null;
  /** One per embedding model, each carrying the revision and embedding revision it reflects. */
  vectors: Map<string, TrackedVectorIndex>;
}

/**
 * In-memory search indexes of the most recently searched graphs, keyed by (workspace, graph key).
 * Each index is kept across writes and brought up to date by the caller when the graph moved on (node
 * by node, see SqliteSearchIndexUpdater and SqliteVectorIndexUpdater). The caller reads the graph's
 * current GraphRef (one cheap query per call), so a write by this process or by another one on the
 * same file is seen by the next call. Least recently used graphs are dropped beyond `maxGraphs`.
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

  /**
   * The vector index of `model`. Bringing it up to date drops the other models' indexes that are out
   * of date: a process searches with one model, and a stale one would only be caught up (or rebuilt)
   * if that model came back.
   */
  vectorIndex(
    workspace: string,
    graphKey: string,
    ref: GraphRef,
    model: string,
    update: (current: TrackedVectorIndex | null) => TrackedVectorIndex,
  ): VectorIndex {
    const entry = this.entryFor(workspace, graphKey, ref);
    let tracked = entry.vectors.get(model);
    if (!tracked || !isCurrent(tracked, ref)) {
      for (const [other, index] of entry.vectors) if (other !== model && !isCurrent(index, ref)) entry.vectors.delete(other);
      tracked = update(tracked ?? null);
      entry.vectors.set(model, tracked);
    }
    return tracked.index;
  }

  clear(): void {
    this.entries.clear();
  }

  private entryFor(workspace: string, graphKey: string, ref: GraphRef): CachedIndexes {
    const cacheKey = `${workspace}\u0000${graphKey}`;
    let entry = this.entries.get(cacheKey);
    if (entry && entry.graphId !== ref.id) entry = undefined;
    if (!entry) entry = { graphId: ref.id, search: null, vectors: new Map() };
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

function isCurrent(tracked: TrackedVectorIndex, ref: GraphRef): boolean {
  return tracked.revision === ref.revision && tracked.embeddingRevision === ref.embeddingRevision;
}

import { NodeSearchIndex } from '../search/node-search.index';
import { VectorIndex } from '../search/vector.index';
import { GraphRef } from './sqlite-graph.statements';

interface CachedIndexes {
  graphId: number;
  revision: number;
  embeddingRevision: number;
  search: NodeSearchIndex | null;
  vectors: Map<string, VectorIndex>;
}

/**
 * In-memory search indexes of the most recently searched graphs, keyed by (workspace, graph key) and
 * valid for one graph state: the lexical index for one `revision`, the vector indexes (one per
 * model) for one `revision` + `embeddingRevision`. The caller reads the graph's current GraphRef
 * (one cheap query per call), so a write by this process or by another one on the same file makes
 * the next call rebuild. Least recently used graphs are dropped beyond `maxGraphs`.
 */
export class SqliteGraphIndexCache {
  private readonly entries = new Map<string, CachedIndexes>();

  constructor(private readonly maxGraphs = 16) {}

  searchIndex(workspace: string, graphKey: string, ref: GraphRef, build: () => NodeSearchIndex): NodeSearchIndex {
    const entry = this.entryFor(workspace, graphKey, ref);
    entry.search ??= build();
    return entry.search;
  }

  vectorIndex(workspace: string, graphKey: string, ref: GraphRef, model: string, build: () => VectorIndex): VectorIndex {
    const entry = this.entryFor(workspace, graphKey, ref);
    if (entry.embeddingRevision !== ref.embeddingRevision) {
      entry.vectors.clear();
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
    if (entry && (entry.graphId !== ref.id || entry.revision !== ref.revision)) entry = undefined;
    if (!entry) {
      entry = { graphId: ref.id, revision: ref.revision, embeddingRevision: ref.embeddingRevision, search: null, vectors: new Map() };
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

import { performance } from 'node:perf_hooks';
import { Logger } from '../../observability/logger';
import { NodeSearchIndex } from '../search/node-search.index';
import { VectorIndex } from '../search/vector.index';
import { GraphRef } from './sqlite-graph.statements';
import { TrackedSearchIndex } from './sqlite-search-index.updater';
import { TrackedVectorIndex } from './sqlite-vector-index.updater';

export interface SqliteGraphIndexCacheOptions {
  /** Graphs whose indexes are kept (least recently searched dropped first). */
  maxGraphs?: number;
  /**
   * Nodes indexed over every kept graph (a node counts once per index: BM25, each vector model).
   * Beyond it the least recently searched graphs are dropped, down to the one being searched, so a
   * few very large graphs cannot pin hundreds of MB (50,000 nodes of 512-float vectors are ~130 MB).
   */
  maxIndexedNodes?: number;
  /** A graph not searched for this long has its indexes dropped: memory comes back after a burst of large graphs. */
  idleTtlMs?: number;
  /**
   * How long a search waits for its graph's index to be built or rebuilt before answering from what
   * is ready: the index of an earlier revision of the graph when there is one, else nothing (null
   * from searchIndex / vectorIndex). A vector search with an earlier index does not wait at all.
   * Null (default): a search waits for the build, however long it takes.
   */
  maxWaitMs?: number | null;
  clock?: () => number;
}

/** How a search waits for its graph's index being built. */
export interface IndexWait {
  /** Wait for the build however long it takes (preparing a graph's search ahead of its questions). */
  untilBuilt: boolean;
  /** Whether the graph's builds run off the event loop (then `maxWaitMs` applies). Asked only when a build is under way. */
  offThread: () => boolean;
}

export const DEFAULT_INDEX_CACHE_MAX_GRAPHS = 16;
export const DEFAULT_INDEX_CACHE_MAX_INDEXED_NODES = 100_000;
export const DEFAULT_INDEX_CACHE_IDLE_TTL_MS = 10 * 60_000;
const logger = new Logger('graph');

/** How often idle graphs are looked for when no search comes (a search also looks). */
const IDLE_SWEEP_INTERVAL_MS = 60_000;

interface CachedIndexes {
  graphId: number;
  lastUsed: number;
  /** Carries the revision it reflects; brought up to date by the caller's `update`. */
  search: TrackedSearchIndex | null;
  /** The update of `search` under way: every search of the graph meanwhile waits for it (one build, not one per request). */
  searchUpdate: Promise<TrackedSearchIndex> | null;
  /** One per embedding model, each carrying the revision and embedding revision it reflects. */
  vectors: Map<string, TrackedVectorIndex>;
  vectorUpdates: Map<string, Promise<TrackedVectorIndex>>;
}

/**
 * In-memory search indexes of the most recently searched graphs, keyed by (workspace, graph key).
 * Each index is kept across writes and brought up to date by the caller when the graph moved on (node
 * by node, see SqliteSearchIndexUpdater and SqliteVectorIndexUpdater; a rebuild runs in pages with
 * turns of the event loop between them). One update per index at a time: concurrent searches of a
 * graph being indexed wait for that one update. The caller reads the graph's current GraphRef (one
 * cheap query per call), so a write by this process or by another one on the same file is seen by
 * the next call. Least recently used graphs are dropped beyond `maxGraphs` graphs or
 * `maxIndexedNodes` indexed nodes, and any graph not searched for `idleTtlMs`.
 */
export class SqliteGraphIndexCache {
  private readonly entries = new Map<string, CachedIndexes>();
  private readonly maxGraphs: number;
  private readonly maxIndexedNodes: number;
  private readonly idleTtlMs: number;
  private readonly maxWaitMs: number | null;
  private readonly clock: () => number;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(options: SqliteGraphIndexCacheOptions = {}) {
    this.maxGraphs = options.maxGraphs ?? DEFAULT_INDEX_CACHE_MAX_GRAPHS;
    this.maxIndexedNodes = options.maxIndexedNodes ?? DEFAULT_INDEX_CACHE_MAX_INDEXED_NODES;
    this.idleTtlMs = options.idleTtlMs ?? DEFAULT_INDEX_CACHE_IDLE_TTL_MS;
    this.maxWaitMs = options.maxWaitMs ?? null;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * The BM25 index of the graph at `ref`, brought up to date by `update` when it is not. With a
   * `maxWaitMs` and a graph built off the event loop (`wait.offThread()`, asked only when a build is
   * under way), a search waits that long for the build, then answers from the graph's earlier index,
   * or null when there is none. `wait.untilBuilt`: waits for the build, however long.
   */
  async searchIndex(
    workspace: string,
    graphKey: string,
    ref: GraphRef,
    update: (current: TrackedSearchIndex | null) => Promise<TrackedSearchIndex>,
    wait: IndexWait,
  ): Promise<NodeSearchIndex | null> {
    const cacheKey = keyOf(workspace, graphKey);
    const entry = this.entryFor(cacheKey, ref);
    const waiting = this.waitingFrom(performance.now(), wait);
    // An update that started before this call may stop short of `ref`: wait for it, then look again.
    if (entry.searchUpdate && !(await waiting(entry.searchUpdate))) return this.earlierSearch(entry, graphKey, ref);
    if (entry.search && entry.search.revision === ref.revision) return entry.search.index;
    if (!entry.searchUpdate) {
      entry.searchUpdate = update(entry.search)
        .then((tracked) => {
          entry.search = tracked;
          return tracked;
        })
        .finally(() => {
          entry.searchUpdate = null;
          this.enforceBudget(cacheKey);
        });
    }
    const updated = await waiting(entry.searchUpdate);
    return updated ? updated.index : this.earlierSearch(entry, graphKey, ref);
  }

  /**
   * Starts building the graph's BM25 index from what `build` gives (an import's staged build), as
   * the update every search of the graph at `ref` waits for.
   */
  installSearchBuild(workspace: string, graphKey: string, ref: GraphRef, build: Promise<TrackedSearchIndex>): void {
    const cacheKey = keyOf(workspace, graphKey);
    const entry = this.entryFor(cacheKey, ref);
    const previous = entry.searchUpdate ?? Promise.resolve(null);
    const installed: Promise<TrackedSearchIndex> = previous
      .catch(() => null)
      .then(() => build)
      .then((tracked) => {
        if (!entry.search || entry.search.revision <= tracked.revision) entry.search = tracked;
        return tracked;
      })
      .finally(() => {
        if (entry.searchUpdate === installed) entry.searchUpdate = null;
        this.enforceBudget(cacheKey);
      });
    entry.searchUpdate = installed;
    // Nobody may be waiting: a failed build is only logged by whoever made it.
    installed.catch(() => undefined);
  }

  /**
   * The vector index of `model`. Bringing it up to date drops the other models' indexes that are out
   * of date: a process searches with one model, and a stale one would only be caught up (or rebuilt)
   * if that model came back. With a `maxWaitMs` and a graph built off the event loop, a search never
   * waits for a build: it answers from the earlier index, or null (the question is answered by BM25
   * alone meanwhile).
   */
  async vectorIndex(
    workspace: string,
    graphKey: string,
    ref: GraphRef,
    model: string,
    update: (current: TrackedVectorIndex | null) => Promise<TrackedVectorIndex>,
    wait: IndexWait,
  ): Promise<VectorIndex | null> {
    const cacheKey = keyOf(workspace, graphKey);
    const entry = this.entryFor(cacheKey, ref);
    const noWait = () => this.maxWaitMs !== null && !wait.untilBuilt && wait.offThread();
    const running = entry.vectorUpdates.get(model);
    // An update that started before this call may stop short of `ref`: wait for it, then look again.
    if (running) {
      if (noWait()) return this.earlierVectors(entry, model, graphKey, ref);
      await running.catch(() => undefined);
    }
    const tracked = entry.vectors.get(model);
    if (tracked && isCurrent(tracked, ref)) return tracked.index;
    let pending = entry.vectorUpdates.get(model);
    if (!pending) {
      for (const [other, index] of entry.vectors)
        if (other !== model && !isCurrent(index, ref)) entry.vectors.delete(other);
      pending = update(tracked ?? null)
        .then((updated) => {
          entry.vectors.set(model, updated);
          return updated;
        })
        .finally(() => {
          entry.vectorUpdates.delete(model);
          this.enforceBudget(cacheKey);
        });
      entry.vectorUpdates.set(model, pending);
    }
    // A catch-up in place is done by now (the update's synchronous start): only a rebuild is still running.
    if (tracked && isCurrent(tracked, ref)) return tracked.index;
    if (noWait()) return this.earlierVectors(entry, model, graphKey, ref);
    return (await pending.catch(() => null))?.index ?? null;
  }

  /** Whether the graph's vector index of `model` is kept here, or being built. */
  holdsVectors(workspace: string, graphKey: string, model: string): boolean {
    const entry = this.entries.get(keyOf(workspace, graphKey));
    return entry !== undefined && (entry.vectors.has(model) || entry.vectorUpdates.has(model));
  }

  /**
   * Waits for an update, within `maxWaitMs` from `started` in all when the graph is built off the
   * event loop: its result, or null when the time ran out or the update failed.
   */
  private waitingFrom(started: number, wait: IndexWait): <T>(update: Promise<T>) => Promise<T | null> {
    return async <T>(update: Promise<T>): Promise<T | null> => {
      const guarded = update.catch(() => null);
      if (this.maxWaitMs === null || wait.untilBuilt || !wait.offThread()) return guarded;
      const left = this.maxWaitMs - (performance.now() - started);
      if (left <= 0) return null;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), left)));
      try {
        return await Promise.race([guarded, timeout]);
      } finally {
        clearTimeout(timer);
      }
    };
  }

  private earlierSearch(entry: CachedIndexes, graphKey: string, ref: GraphRef): NodeSearchIndex | null {
    if (entry.search) this.logEarlier('search_index_earlier_answer', graphKey, entry.search.revision, ref.revision);
    return entry.search?.index ?? null;
  }

  private earlierVectors(entry: CachedIndexes, model: string, graphKey: string, ref: GraphRef): VectorIndex | null {
    const earlier = entry.vectors.get(model);
    if (earlier) this.logEarlier('vector_index_earlier_answer', graphKey, earlier.revision, ref.revision);
    return earlier?.index ?? null;
  }

  private logEarlier(event: string, graphKey: string, indexRevision: number, revision: number): void {
    logger.debug(event, { graphKey, indexRevision, revision });
  }

  /** Nodes indexed over every kept graph (the figure `maxIndexedNodes` bounds). */
  get indexedNodes(): number {
    let total = 0;
    for (const entry of this.entries.values()) total += indexedNodesOf(entry);
    return total;
  }

  clear(): void {
    this.entries.clear();
    this.stopSweeping();
  }

  /** Drops the graphs not searched for idleTtlMs (none that is being indexed). */
  dropIdle(): void {
    const now = this.clock();
    for (const [cacheKey, entry] of this.entries) {
      const updating = entry.searchUpdate !== null || entry.vectorUpdates.size > 0;
      if (!updating && now - entry.lastUsed > this.idleTtlMs) this.entries.delete(cacheKey);
    }
    if (this.entries.size === 0) this.stopSweeping();
  }

  private entryFor(cacheKey: string, ref: GraphRef): CachedIndexes {
    this.dropIdle();
    let entry = this.entries.get(cacheKey);
    if (entry && entry.graphId !== ref.id) entry = undefined;
    if (!entry)
      entry = {
        graphId: ref.id,
        lastUsed: 0,
        search: null,
        searchUpdate: null,
        vectors: new Map(),
        vectorUpdates: new Map(),
      };
    entry.lastUsed = this.clock();
    // Re-inserting moves the entry to the end: Map order is the recency order.
    this.entries.delete(cacheKey);
    this.entries.set(cacheKey, entry);
    this.enforceBudget(cacheKey);
    this.startSweeping();
    return entry;
  }

  /** Idle graphs are also dropped when no search comes at all; the timer never keeps the process alive. */
  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.dropIdle(), Math.min(IDLE_SWEEP_INTERVAL_MS, this.idleTtlMs));
    this.sweeper.unref();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** Drops the least recently used graphs beyond the bounds, never `keep` (the graph being searched). */
  private enforceBudget(keep: string): void {
    let indexedNodes = this.indexedNodes;
    for (const [cacheKey, entry] of this.entries) {
      if (this.entries.size <= this.maxGraphs && indexedNodes <= this.maxIndexedNodes) return;
      if (cacheKey === keep) continue;
      this.entries.delete(cacheKey);
      indexedNodes -= indexedNodesOf(entry);
    }
  }
}

function keyOf(workspace: string, graphKey: string): string {
  return `${workspace}\u0000${graphKey}`;
}

function indexedNodesOf(entry: CachedIndexes): number {
  let total = entry.search?.index.size ?? 0;
  for (const tracked of entry.vectors.values()) total += tracked.index.size;
  return total;
}

function isCurrent(tracked: TrackedVectorIndex, ref: GraphRef): boolean {
  return tracked.revision === ref.revision && tracked.embeddingRevision === ref.embeddingRevision;
}

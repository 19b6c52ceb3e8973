import { Logger } from '../observability/logger';
import { EmbeddingRunReport } from './embedding-run.report';
import { GraphNodeEmbedder } from './graph-node.embedder';

export interface NodeEmbeddingQueueOptions {
  /** Graphs embedded at the same time (their batches also share the embedder's limiter). Default 2. */
  maxConcurrentGraphs?: number;
  /** Past this many distinct pending keys for one graph, the graph is queued whole instead ('all'). Default 10,000. */
  maxPendingKeysPerGraph?: number;
}

/** Told after a run stored vectors of a graph: its vector indexes can be brought up to date. */
export type GraphEmbeddedListener = (workspace: string, graphKey: string) => void;

interface PendingGraph {
  workspace: string;
  graphKey: string;
  keys: Set<string> | 'all';
}

const logger = new Logger('embeddings');

/**
 * The background side of the embedding write path: graph changes are queued here and embedded by
 * GraphNodeEmbedder without blocking the request that caused them. Repeated changes coalesce: one
 * pending entry per graph holding the union of its changed node keys (or the whole graph, past
 * maxPendingKeysPerGraph, so memory stays bounded), and each run re-reads the stored nodes, so a
 * node changed ten times before its turn is embedded once, from its last saved content. One graph
 * is never embedded by two runs at once; a change arriving during a run is queued for the next.
 * Never throws to its callers: a failed run is logged.
 */
export class NodeEmbeddingQueue {
  private readonly pending = new Map<string, PendingGraph>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly embeddedListeners = new Set<GraphEmbeddedListener>();
  private readonly maxConcurrentGraphs: number;
  private readonly maxPendingKeysPerGraph: number;
  private closed = false;

  constructor(
    private readonly embedder: GraphNodeEmbedder,
    options: NodeEmbeddingQueueOptions = {},
  ) {
    this.maxConcurrentGraphs = Math.max(1, options.maxConcurrentGraphs ?? 2);
    this.maxPendingKeysPerGraph = Math.max(1, options.maxPendingKeysPerGraph ?? 10_000);
  }

  /** Graphs waiting for their turn, and graphs being embedded now. */
  get size(): { pending: number; running: number } {
    return { pending: this.pending.size, running: this.running.size };
  }

  /** Queues nodes of a graph (an empty list is ignored). Ignored once shutdown has started. */
  enqueue(workspace: string, graphKey: string, nodeKeys: string[] | 'all'): void {
    if (this.closed || (nodeKeys !== 'all' && nodeKeys.length === 0)) return;
    const id = `${workspace}\u0000${graphKey}`;
    const entry = this.pending.get(id) ?? { workspace, graphKey, keys: new Set<string>() };
    if (nodeKeys === 'all') entry.keys = 'all';
    else if (entry.keys !== 'all') {
      for (const key of nodeKeys) entry.keys.add(key);
      if (entry.keys.size > this.maxPendingKeysPerGraph) entry.keys = 'all';
    }
    this.pending.set(id, entry);
    this.pump();
  }

  /** Calls `listener` after each run that stored at least one vector; the returned function unsubscribes. */
  onGraphEmbedded(listener: GraphEmbeddedListener): () => void {
    this.embeddedListeners.add(listener);
    return () => this.embeddedListeners.delete(listener);
  }

  /** Resolves once nothing is pending or running (tests, CLIs). */
  whenIdle(): Promise<void> {
    if (this.pending.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking work and drops what is pending; runs in flight get `timeoutMs` to finish, then
   * are aborted (their unsent texts count as failed). Resolves when every run has ended.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pending.size > 0) logger.warn('embedding_queue_dropped', { graphs: this.pending.size });
    this.pending.clear();
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const finished = Promise.all(this.running.values()).then(() => 'done' as const);
    if ((await Promise.race([finished, timedOut])) === 'timeout') {
      logger.warn('embedding_queue_aborted', { running: this.running.size, timeoutMs });
      this.abort.abort(new Error('shutdown'));
      await finished;
    }
    clearTimeout(timer);
  }

  private pump(): void {
    for (const [id, entry] of this.pending) {
      if (this.running.size >= this.maxConcurrentGraphs) break;
      if (this.running.has(id)) continue;
      this.pending.delete(id);
      const run = this.run(entry).finally(() => {
        this.running.delete(id);
        this.pump();
        if (this.pending.size === 0 && this.running.size === 0)
          this.idleWaiters.splice(0).forEach((resolve) => resolve());
      });
      this.running.set(id, run);
    }
  }

  private async run(entry: PendingGraph): Promise<void> {
    const { workspace, graphKey } = entry;
    const selection = entry.keys === 'all' ? 'all' : [...entry.keys];
    try {
      const report: EmbeddingRunReport = await this.embedder.embedGraph(workspace, graphKey, selection, {
        signal: this.abort.signal,
      });
      if (report.processed > 0) {
        logger.info('embedding_run', {
          workspace,
          graphKey,
          model: this.embedder.provider.modelName,
          selection: selection === 'all' ? 'all' : 'changed',
          ...report,
        });
      }
      if (report.embedded > 0) for (const listener of this.embeddedListeners) listener(workspace, graphKey);
    } catch (error) {
      logger.error('embedding_run_failed', {
        workspace,
        graphKey,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  }
}

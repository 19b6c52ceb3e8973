import type { GraphEmbeddedListener } from '../embeddings/node-embedding.queue';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphStore } from '../graph/graph-store';
import { Logger } from '../observability/logger';

/**
 * How long an instance waits after another one imported a graph before preparing its search: the
 * importing instance stores the graph's index snapshot within a moment of the import, and loading
 * it is much cheaper than building the index again.
 */
export const REMOTE_IMPORT_PREPARE_DELAY_MS = 2_000;

const logger = new Logger('rag');

/** Where embedding runs are heard of (NodeEmbeddingQueue). */
export interface GraphEmbeddingRuns {
  onGraphEmbedded(listener: GraphEmbeddedListener): () => void;
}

/**
 * Gets graphs' search ready before their first question (GraphStore.prepareSearch, where the store
 * keeps in-memory indexes): each graph imported (here or, a moment later, on another instance), and
 * at start the large graphs the instance finds in its store; and, after each background embedding
 * run, the graph's vector index where this instance keeps it (a large graph is embedded for minutes
 * after its import: its vectors are indexed when they are stored, not on the next question). In the
 * background: nothing waits for it, and a question that comes first waits for the same build.
 */
export class GraphSearchPreparer {
  private readonly unsubscribe: () => void;
  private readonly stopHearingEmbeddings: () => void;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: GraphStore,
    notifier: GraphChangeNotifier,
    private readonly vectorModel: string | null,
    embeddingRuns: GraphEmbeddingRuns | null = null,
  ) {
    const refresh = store.refreshVectorIndex?.bind(store);
    this.stopHearingEmbeddings =
      embeddingRuns && refresh && vectorModel
        ? embeddingRuns.onGraphEmbedded((workspace, graphKey) => void refresh(workspace, graphKey, vectorModel))
        : () => undefined;
    this.unsubscribe = store.prepareSearch
      ? notifier.subscribe((event) => {
          if (event.kind !== 'imported') return;
          if (!event.remote) return this.prepare(event.workspace, event.graphKey);
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            this.prepare(event.workspace, event.graphKey);
          }, REMOTE_IMPORT_PREPARE_DELAY_MS);
          timer.unref();
          this.timers.add(timer);
        })
      : () => undefined;
  }

  /** Nest calls it once the application is up: the large graphs are prepared in the background. */
  onApplicationBootstrap(): void {
    const prepareLargeGraphs = this.store.prepareLargeGraphs?.bind(this.store);
    if (!prepareLargeGraphs) return;
    void prepareLargeGraphs(this.vectorModel).then(
      (graphs) => {
        if (graphs > 0) logger.info('large_graphs_prepared', { graphs });
      },
      (error: unknown) =>
        logger.warn('large_graphs_prepare_failed', { error: error instanceof Error ? error.message : String(error) }),
    );
  }

  onModuleDestroy(): void {
    this.unsubscribe();
    this.stopHearingEmbeddings();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private prepare(workspace: string, graphKey: string): void {
    void this.store.prepareSearch?.(workspace, graphKey, this.vectorModel);
  }
}

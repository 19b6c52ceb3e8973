import { GraphChangeEvent } from '../graph/graph-change.event';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { Logger } from '../observability/logger';
import { NodeEmbeddingQueue } from './node-embedding.queue';

const logger = new Logger('embeddings');

/**
 * Connects graph changes to the embedding queue: saved nodes (change feed, writes through the data
 * source) and whole graphs (import, demo seed) get vectors in the background; live overlay changes
 * do not (unsaved state is not embedded). Without a queue (EMBEDDING_PROVIDER=none) it does nothing.
 * On shutdown it stops the queue within `shutdownTimeoutMs`, before the store closes.
 */
export class EmbeddingWriteListener {
  private readonly unsubscribe: () => void;

  constructor(
    notifier: GraphChangeNotifier,
    private readonly queue: NodeEmbeddingQueue | null,
    private readonly shutdownTimeoutMs: number,
  ) {
    if (!queue) logger.info('embedding_write_path_disabled', { reason: 'EMBEDDING_PROVIDER=none' });
    this.unsubscribe = queue ? notifier.subscribe((event) => this.onChange(event)) : () => undefined;
  }

  /** Nest calls this before GraphModule closes the store (EmbeddingsModule depends on GraphModule). */
  async onModuleDestroy(): Promise<void> {
    this.unsubscribe();
    await this.queue?.shutdown(this.shutdownTimeoutMs);
  }

  private onChange(event: GraphChangeEvent): void {
    // The instance that made the change embeds its nodes.
    if (event.remote) return;
    if (event.kind === 'stored') this.queue?.enqueue(event.workspace, event.graphKey, event.nodeKeys);
    else if (event.kind === 'imported') this.queue?.enqueue(event.workspace, event.graphKey, 'all');
  }
}

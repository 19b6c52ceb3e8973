import { Logger } from '../observability/logger';
import { GraphChangeEvent } from './graph-change.event';

export type GraphChangeListener = (event: GraphChangeEvent) => void;

const logger = new Logger('graph');

/**
 * In-process fan-out of GraphChangeEvents from GraphModule (change feed, import, demo seed, writes
 * through the data source) to modules that depend on GraphModule (RagModule clears its cache,
 * EmbeddingsModule queues vectors), so GraphModule never imports them. Listeners run synchronously
 * and must be quick (queue the work); one that throws is logged and does not stop the others.
 */
export class GraphChangeNotifier {
  private readonly listeners = new Set<GraphChangeListener>();

  /** Returns the unsubscribe function. */
  subscribe(listener: GraphChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(event: GraphChangeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.error('graph_change_listener_failed', {
          kind: event.kind,
          graphKey: event.graphKey,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
      }
    }
  }
}

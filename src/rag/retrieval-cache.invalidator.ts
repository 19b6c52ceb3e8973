import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphRagRetriever } from './graph-rag.retriever';

/**
 * Forgets a graph's cached retrieval contexts whenever it changes (live overlay, saved changes,
 * import, writes through the data source), so the next question sees what the user sees.
 */
export class RetrievalCacheInvalidator {
  private readonly unsubscribe: () => void;

  constructor(retriever: GraphRagRetriever, notifier: GraphChangeNotifier) {
    this.unsubscribe = notifier.subscribe((event) => retriever.clearCache(event.graphKey, event.workspace));
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}

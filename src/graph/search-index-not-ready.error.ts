import { AppError } from '../errors/app-error';

/**
 * A search of a graph whose index is still being built (a large graph just imported or loaded) and
 * had nothing to answer with within the store's wait: retryable in a moment. The retriever answers
 * the question from what else is ready.
 */
export class SearchIndexNotReadyError extends AppError {
  constructor(graphKey: string, index: 'bm25' | 'vectors') {
    super('store_unavailable', `The ${index} index of graph "${graphKey}" is still being built; retry shortly`, {
      graphKey,
      index,
    });
    this.name = 'SearchIndexNotReadyError';
  }
}

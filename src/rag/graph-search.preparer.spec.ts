import type { GraphEmbeddedListener } from '../embeddings/node-embedding.queue';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphStore } from '../graph/graph-store';
import { GraphSearchPreparer, REMOTE_IMPORT_PREPARE_DELAY_MS } from './graph-search.preparer';

function storeWithPreparation() {
  const prepared: Array<[string, string, string | null]> = [];
  const refreshed: Array<[string, string, string]> = [];
  const store = {
    prepareSearch: jest.fn(async (workspace: string, graphKey: string, model: string | null) => {
      prepared.push([workspace, graphKey, model]);
    }),
    prepareLargeGraphs: jest.fn(async () => 2),
    refreshVectorIndex: jest.fn(async (workspace: string, graphKey: string, model: string) => {
      refreshed.push([workspace, graphKey, model]);
    }),
  };
  return { store: store as unknown as GraphStore, calls: store, prepared, refreshed };
}

describe(GraphSearchPreparer.name, () => {
  afterEach(() => jest.useRealTimers());

  it("prepares an imported graph's search at once, and one imported by another instance a moment later", () => {
    jest.useFakeTimers();
    const notifier = new GraphChangeNotifier();
    const { store, prepared } = storeWithPreparation();
    const preparer = new GraphSearchPreparer(store, notifier, 'local-words-v1-612');
    notifier.notify({ kind: 'imported', workspace: 'w', graphKey: 'here' });
    notifier.notify({ kind: 'stored', workspace: 'w', graphKey: 'here', nodeKeys: ['a'] });
    notifier.notify({ kind: 'live', workspace: 'w', graphKey: 'here' });
    expect(prepared).toEqual([['w', 'here', 'local-words-v1-612']]);

    notifier.notify({ kind: 'imported', workspace: 'w', graphKey: 'there', remote: true });
    jest.advanceTimersByTime(REMOTE_IMPORT_PREPARE_DELAY_MS - 1);
    expect(prepared).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(prepared[1]).toEqual(['w', 'there', 'local-words-v1-612']);

    preparer.onModuleDestroy();
    notifier.notify({ kind: 'imported', workspace: 'w', graphKey: 'gone' });
    expect(prepared).toHaveLength(2);
  });

  it('prepares the large graphs of the store once the application is up, and forgets a remote import at shutdown', () => {
    jest.useFakeTimers();
    const notifier = new GraphChangeNotifier();
    const { store, calls, prepared } = storeWithPreparation();
    const preparer = new GraphSearchPreparer(store, notifier, null);
    preparer.onApplicationBootstrap();
    expect(calls.prepareLargeGraphs).toHaveBeenCalledWith(null);
    notifier.notify({ kind: 'imported', workspace: 'w', graphKey: 'there', remote: true });
    preparer.onModuleDestroy();
    jest.advanceTimersByTime(REMOTE_IMPORT_PREPARE_DELAY_MS);
    expect(prepared).toEqual([]);
  });

  it("brings a graph's vector index up to date after each embedding run, until shutdown; without a model, never", () => {
    const notifier = new GraphChangeNotifier();
    const listeners = new Set<GraphEmbeddedListener>();
    const runs = {
      onGraphEmbedded: (listener: GraphEmbeddedListener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const embedded = (workspace: string, graphKey: string) => listeners.forEach((tell) => tell(workspace, graphKey));
    const { store, refreshed } = storeWithPreparation();
    const preparer = new GraphSearchPreparer(store, notifier, 'local-words-v1-612', runs);
    const withoutModel = new GraphSearchPreparer(store, notifier, null, runs);
    expect(listeners.size).toBe(1);
    embedded('w', 'g');
    expect(refreshed).toEqual([['w', 'g', 'local-words-v1-612']]);
    preparer.onModuleDestroy();
    withoutModel.onModuleDestroy();
    expect(listeners.size).toBe(0);
  });

  it('does nothing with a store that keeps its indexes itself', () => {
    const notifier = new GraphChangeNotifier();
    const preparer = new GraphSearchPreparer({} as GraphStore, notifier, null);
    preparer.onApplicationBootstrap();
    notifier.notify({ kind: 'imported', workspace: 'w', graphKey: 'here' });
    preparer.onModuleDestroy();
  });
});

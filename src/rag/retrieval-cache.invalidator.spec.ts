import { InMemoryGraphDataSource } from '../../test/support/in-memory-graph-data-source';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphRagRetriever } from './graph-rag.retriever';
import { RetrievalCacheInvalidator } from './retrieval-cache.invalidator';

describe(RetrievalCacheInvalidator.name, () => {
  async function setUp() {
    const retriever = new GraphRagRetriever();
    const notifier = new GraphChangeNotifier();
    const invalidator = new RetrievalCacheInvalidator(retriever, notifier);
    const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
    await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
    return { retriever, notifier, invalidator, source };
  }

  it('forgets the cached contexts of a graph when it changes in that workspace', async () => {
    const { retriever, notifier, source } = await setUp();
    notifier.notify({ kind: 'live', workspace: 'other-workspace', graphKey: DEMO_GRAPH_KEY });
    notifier.notify({ kind: 'imported', workspace: DEMO_WORKSPACE, graphKey: 'other-graph' });
    expect(retriever.cacheSize).toBe(1);
    notifier.notify({ kind: 'stored', workspace: DEMO_WORKSPACE, graphKey: DEMO_GRAPH_KEY, nodeKeys: ['root'] });
    expect(retriever.cacheSize).toBe(0);
    expect((await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api')).retrieval.cacheHit).toBe(false);
  });

  it('stops listening when the module is destroyed', async () => {
    const { retriever, notifier, invalidator } = await setUp();
    invalidator.onModuleDestroy();
    notifier.notify({ kind: 'live', workspace: DEMO_WORKSPACE, graphKey: DEMO_GRAPH_KEY });
    expect(retriever.cacheSize).toBe(1);
  });
});

import { InMemoryGraphDataSource } from '../../test/support/in-memory-graph-data-source';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { ScoredNode, SearchScope, VectorQuery } from '../graph/graph-data-source';
import { SearchIndexNotReadyError } from '../graph/search-index-not-ready.error';
import { GraphRagRetriever } from './graph-rag.retriever';

/** A data source whose search indexes are being built (a large graph just imported) until `ready()`. */
class IndexingDataSource extends InMemoryGraphDataSource {
  private building = { bm25: true, vectors: true };

  ready(index: 'bm25' | 'vectors'): void {
    this.building[index] = false;
  }

  override async searchNodes(
    graphKey: string,
    query: string,
    maxResults: number,
    scope?: SearchScope,
  ): Promise<ScoredNode[]> {
    if (this.building.bm25) throw new SearchIndexNotReadyError(graphKey, 'bm25');
    return super.searchNodes(graphKey, query, maxResults, scope);
  }

  override async searchNodesByVector(graphKey: string, query: VectorQuery, maxResults: number): Promise<ScoredNode[]> {
    if (this.building.vectors) throw new SearchIndexNotReadyError(graphKey, 'vectors');
    return super.searchNodesByVector(graphKey, query, maxResults);
  }
}

const constantProvider: EmbeddingProvider = {
  modelName: 'constant',
  dimension: 2,
  embed: async (texts) => texts.map(() => Float32Array.of(1, 0)),
  embedOne: async () => Float32Array.of(1, 0),
};

/** Two copies of the demo on two sheets named after their workflow. */
function union() {
  const document = structuredClone(nbaWorkflowDemo);
  document.graph.sheetsList = { '0': 'NBA players leaderboard', '1': 'Basketball scores archive' };
  document.nodes.push(...nbaWorkflowDemo.nodes.map((node) => ({ ...node, _key: `b-${node._key}`, sheet: '1' })));
  return document;
}

describe(`${GraphRagRetriever.name} while the graph's search index is being built`, () => {
  it('answers from what is ready, says so, and does not cache it', async () => {
    const source = new IndexingDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
    const retriever = new GraphRagRetriever({ embeddingProvider: constantProvider });
    const building = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
    expect(building.retrieval).toMatchObject({ searchMode: 'fallback', indexing: true, cacheHit: false });
    expect(retriever.cacheSize).toBe(0);

    source.ready('bm25');
    const lexical = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
    expect(lexical.retrieval).toMatchObject({ searchMode: 'bm25', indexing: true });
    expect(lexical.relevantNodes[0]._key).toBe('fetch-api');
    expect(retriever.cacheSize).toBe(0);

    source.ready('vectors');
    const ready = await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api');
    expect(ready.retrieval.searchMode).toBe('hybrid');
    expect(ready.retrieval.indexing).toBeUndefined();
    expect(retriever.cacheSize).toBe(1);
    expect((await retriever.retrieve(source, DEMO_GRAPH_KEY, 'fetch api')).retrieval.cacheHit).toBe(true);
  });

  it('searches a named sheet on the spot: its own nodes indexed for the question', async () => {
    const source = new IndexingDataSource(DEMO_WORKSPACE, [union()]);
    const retriever = new GraphRagRetriever();
    const named = await retriever.retrieve(source, DEMO_GRAPH_KEY, '[Basketball scores archive] fetch api');
    expect(named.retrieval).toMatchObject({ searchMode: 'bm25', indexing: true });
    expect(named.relevantNodes[0]._key).toBe('b-fetch-api');
    expect(named.relevantNodes.every((node) => node.sheet === '1')).toBe(true);
    expect(retriever.cacheSize).toBe(0);
  });

  it('lets any other failure of the search through', async () => {
    const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
    jest.spyOn(source, 'searchNodes').mockRejectedValue(new Error('disk on fire'));
    await expect(new GraphRagRetriever().retrieve(source, DEMO_GRAPH_KEY, 'fetch api')).rejects.toThrow('disk on fire');
  });
});

import { GraphRAGContext, RelevantNode } from '../../conversation/graph-rag-context';
import { dataAddedEvent } from './data-added.event';

const node = (key: string, origin: RelevantNode['origin'] = 'search'): RelevantNode => ({
  _key: key,
  type: 'api-call',
  typeName: 'API call',
  sheet: '0',
  sheetName: 'main',
  process: '',
  handles: [],
  dataSummary: '',
  origin,
});

const context = (keys: string[], edges: number): GraphRAGContext => ({
  graph: { _key: 'nba-workflow', name: 'NBA', sheets: { '0': 'main' } },
  relevantNodes: keys.map((key, index) => node(key, index === 0 ? 'mention' : 'search')),
  relevantEdges: Array.from({ length: edges }, (_, index) => ({
    _key: `e${index}`,
    sheet: '0',
    source: 'a',
    sourceHandle: 'R-0',
    target: 'b',
    targetHandle: 'L-0',
  })),
  nodeTypeConfigs: [],
  retrieval: { query: 'q', searchMode: 'bm25', cacheHit: false, durationMs: 1 },
});

describe(dataAddedEvent.name, () => {
  it('says how many nodes and edges the context of a message held, and about how many tokens', () => {
    expect(dataAddedEvent({ context: context(['fetch-api', 'root'], 1), mentions: [], tokens: 1840 })).toEqual({
      type: 'DATA_ADDED',
      summary: 'Loaded 2 nodes and 1 edge into the context (~1,840 tokens)',
      results: [
        { ok: true, label: 'nodes', detail: 'fetch-api, root' },
        { ok: true, label: 'edges', detail: '1' },
      ],
    });
  });

  it('lists at most 10 node keys, and each mention found or not', () => {
    const keys = Array.from({ length: 13 }, (_, index) => `n${index}`);
    const event = dataAddedEvent({ context: context(keys, 0), mentions: ['n0', 'ghost'], tokens: 10 });
    expect(event.results).toEqual([
      { ok: true, label: 'nodes', detail: 'n0, n1, n2, n3, n4, n5, n6, n7, n8, n9 (+3 more)' },
      { ok: true, label: 'edges', detail: '0' },
      { ok: true, label: 'mention n0' },
      { ok: false, label: 'mention ghost', detail: 'not in the graph' },
    ]);
    expect(dataAddedEvent({ context: context([], 0), mentions: [], tokens: 5 }).results[0]).toEqual({
      ok: true,
      label: 'nodes',
      detail: 'none',
    });
  });

  it('adds the parts other context sources report (e.g. recalled memory) to the summary and the results', () => {
    const event = dataAddedEvent({
      context: context(['root'], 0),
      mentions: [],
      tokens: 300,
      parts: [{ summary: '3 recalled memories', label: 'memory', detail: 'turns 2, 5 and 7' }],
    });
    expect(event.summary).toBe('Loaded 1 node, 0 edges and 3 recalled memories into the context (~300 tokens)');
    expect(event.results.at(-1)).toEqual({ ok: true, label: 'memory', detail: 'turns 2, 5 and 7' });
  });
});

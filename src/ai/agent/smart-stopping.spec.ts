import { LlmToolCall } from '../../conversation/llm-message';
import { callSignature, SmartStopping } from './smart-stopping';

const call = (id: string, name: string, args: string): LlmToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});
const result = (toolName: string, ...keys: string[]) => ({
  toolName,
  content: JSON.stringify({ results: keys.map((key) => ({ key, type: 'filter' })) }),
});

describe(SmartStopping.name, () => {
  it('knows a call by its tool and arguments, whatever their order and spacing', () => {
    expect(callSignature(call('a', 'search_nodes', '{"query":"fetch","maxResults":5}'))).toBe(
      callSignature(call('b', 'search_nodes', '{ "maxResults": 5, "query": "fetch" }')),
    );
    expect(callSignature(call('a', 'search_nodes', '{"query":"fetch"}'))).not.toBe(
      callSignature(call('b', 'search_nodes', '{"query":"api"}')),
    );
    expect(callSignature(call('a', 'read_graph_overview', ''))).toBe(
      callSignature(call('b', 'read_graph_overview', '{}')),
    );
    const progress = new SmartStopping(3);
    expect(progress.repeatOf(call('first', 'read_node_detail', '{"nodeKey":"root"}'))).toBeUndefined();
    expect(progress.repeatOf(call('again', 'read_node_detail', '{ "nodeKey":"root" }'))).toBe('first');
  });

  it('stops at once on a round made only of repeats', () => {
    const progress = new SmartStopping(3);
    expect(progress.endRound({ repeated: 2, fresh: 0, results: [] })).toBe(true);
    expect(progress.shouldStop).toBe(true);
  });

  it('counts rounds that name nothing new per tool, and stops at the limit; a new view of a known node is progress', () => {
    const progress = new SmartStopping(3);
    expect(progress.endRound({ repeated: 0, fresh: 1, results: [result('search_nodes', 'fetch-api', 'root')] })).toBe(
      false,
    );
    // The same nodes from another search: nothing new.
    expect(progress.endRound({ repeated: 0, fresh: 1, results: [result('search_nodes', 'root')] })).toBe(false);
    expect(progress.roundsWithoutProgress).toBe(1);
    // The detail of a node the search listed is a new view of it.
    expect(progress.endRound({ repeated: 0, fresh: 1, results: [result('read_node_detail', 'root')] })).toBe(false);
    expect(progress.roundsWithoutProgress).toBe(0);
    // Errors name no key; three such rounds in a row stop the run.
    const refused = {
      toolName: 'read_node_detail',
      content: '{"error":"Node \\"ghost\\" does not exist in this graph."}',
    };
    expect(progress.endRound({ repeated: 0, fresh: 1, results: [refused] })).toBe(false);
    expect(progress.endRound({ repeated: 1, fresh: 1, results: [refused] })).toBe(false);
    expect(progress.endRound({ repeated: 0, fresh: 1, results: [{ toolName: 'x', content: 'not json' }] })).toBe(true);
  });
});

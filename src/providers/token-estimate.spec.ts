import { InMemoryGraphDataSource } from '../../test/support/in-memory-graph-data-source';
import { loadSystemPromptContext } from '../ai/prompts/system-prompt-context';
import { buildSystemPrompt } from '../ai/prompts/system-prompt.builder';
import { AgentToolbox } from '../ai/tools/agent.toolbox';
import { ReadToolExecutor } from '../ai/tools/read-tool.executor';
import { nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { TokenCounter } from '../rag/token-counter';
import { buildContextMessage } from '../rag/toon-context.encoder';
import { LlmMessage } from '../conversation/llm-message';
import { approximateTokens, estimateTokens, estimateToolTokens } from './token-estimate';

describe(estimateTokens.name, () => {
  it('approximates 3 characters per token', () => {
    expect(approximateTokens('')).toBe(0);
    expect(approximateTokens('abc')).toBe(1);
    expect(approximateTokens('abcd')).toBe(2);
  });

  it('counts content, tool calls and the framing of every message', () => {
    const messages: LlmMessage[] = [
      { role: 'user', content: 'x'.repeat(30) },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'abc', arguments: '{"a":1}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'y'.repeat(9) },
    ];
    expect(estimateTokens(messages)).toBe(4 + 10 + 4 + 4 + 1 + 3 + 4 + 3);
  });

  it('stays in the ballpark of the real o200k count, on the high side, for a prompt as the agent sends it', async () => {
    const dataSource = new InMemoryGraphDataSource('default', [nbaWorkflowDemo]);
    const graphKey = nbaWorkflowDemo.graph._key;
    const context = await new GraphRagRetriever().retrieve(dataSource, graphKey, 'fetch api NBA players');
    const messages: LlmMessage[] = [
      { role: 'system', content: buildSystemPrompt(await loadSystemPromptContext(dataSource, graphKey), 'editor'), cacheBreakpoint: true },
      { role: 'system', content: buildContextMessage(context) },
      { role: 'user', content: 'What does fetch-api do when the stats API times out?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(nbaWorkflowDemo.nodes.find((node) => node._key === 'fetch-api')) },
    ];
    const tools = new AgentToolbox({ canPropose: true, readTools: new ReadToolExecutor(dataSource, graphKey) }).definitions;

    const counter = new TokenCounter();
    const real = counter.countMessages(messages) + counter.count(JSON.stringify(tools));
    const estimate = estimateTokens(messages) + estimateToolTokens(tools);
    // Budgets and per-call limits err on the safe side, and not by much.
    expect(estimate).toBeGreaterThanOrEqual(real);
    expect(estimate).toBeLessThan(real * 1.6);
  });

  it('estimates each tool definitions array once', () => {
    const tools = [{ type: 'function' as const, function: { name: 'x', description: 'd'.repeat(300), parameters: { type: 'object' } } }];
    const first = estimateToolTokens(tools);
    expect(first).toBe(approximateTokens(JSON.stringify(tools)));
    tools[0].function.description = '';
    expect(estimateToolTokens(tools)).toBe(first);
    expect(estimateToolTokens(undefined)).toBe(0);
  });
});

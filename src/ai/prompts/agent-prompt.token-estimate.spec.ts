import { InMemoryGraphDataSource } from '../../../test/support/in-memory-graph-data-source';
import { RunAuthority } from '../authority/run-authority';
import { LlmMessage } from '../../conversation/llm-message';
import { nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { estimateTokens, estimateToolTokens } from '../../providers/token-estimate';
import { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import { TokenCounter } from '../../rag/token-counter';
import { buildContextMessage } from '../../rag/toon-context.encoder';
import { AgentToolbox } from '../tools/agent.toolbox';
import { ReadToolExecutor } from '../tools/read/read-tool.executor';
import { loadSystemPromptContext } from './system-prompt-context';
import { buildSystemPrompt } from './system-prompt.builder';

/** The cheap estimate (providers/token-estimate.ts) on what the agent really sends: prompt, context, history and tools. */
describe(`${estimateTokens.name} on the agent's prompt`, () => {
  it('stays in the ballpark of the real o200k count, on the high side, for a prompt as the agent sends it', async () => {
    const dataSource = new InMemoryGraphDataSource('default', [nbaWorkflowDemo]);
    const graphKey = nbaWorkflowDemo.graph._key;
    const context = await new GraphRagRetriever().retrieve(dataSource, graphKey, 'fetch api NBA players');
    const messages: LlmMessage[] = [
      {
        role: 'system',
        content: buildSystemPrompt(await loadSystemPromptContext(dataSource, graphKey), 'editor'),
        cacheBreakpoint: true,
      },
      { role: 'system', content: buildContextMessage(context) },
      { role: 'user', content: 'What does fetch-api do when the stats API times out?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: JSON.stringify(nbaWorkflowDemo.nodes.find((node) => node._key === 'fetch-api')),
      },
    ];
    const tools = new AgentToolbox({
      authority: RunAuthority.withDefaultLevels(true),
      readTools: new ReadToolExecutor(dataSource, graphKey),
    }).definitions;

    const counter = new TokenCounter();
    const real = counter.countMessages(messages) + counter.count(JSON.stringify(tools));
    const estimate = estimateTokens(messages) + estimateToolTokens(tools);
    // Budgets and per-call limits err on the safe side, and not by much.
    expect(estimate).toBeGreaterThanOrEqual(real);
    expect(estimate).toBeLessThan(real * 1.6);
  });
});

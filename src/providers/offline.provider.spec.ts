import { collectLlmStream } from '../../test/support/collect-llm-stream';
import type { GraphRAGContext, RelevantNode } from '../conversation/graph-rag-context';
import { LlmAbortError } from './llm-abort.error';
import { LlmToolDefinition } from '../conversation/llm-message';
import { OfflineLlmProvider } from './offline.provider';

function node(key: string, type: string, typeName: string, process: string, dataSummary = ''): RelevantNode {
  return {
    _key: key,
    type,
    typeName,
    sheet: '0',
    sheetName: 'main',
    process,
    handles: [],
    dataSummary,
    origin: 'search',
    score: 1,
  };
}

const context: GraphRAGContext = {
  graph: { _key: 'nba-workflow', name: 'NBA stats workflow', sheets: { '0': 'main' } },
  relevantNodes: [
    node(
      'fetch-api',
      'api-call',
      'API Call',
      '// Fetch the active NBA players from the stats API.\nconst season = 1;',
      '{"url":"https://api.nba-stats.example/v1/players"}',
    ),
    node(
      'filter-active',
      'filter',
      'Filter',
      '\n{\n  const active = players.filter((p) => p.is_active);\n}',
      '{"minGames":10}',
    ),
    node('root', 'starter', 'starter', ''),
  ],
  relevantEdges: [
    { _key: 'e1', sheet: '0', source: 'root', sourceHandle: 'R-0', target: 'fetch-api', targetHandle: 'L-0' },
    {
      _key: 'e2',
      sheet: '0',
      source: 'fetch-api',
      sourceHandle: 'R-0',
      target: 'filter-active',
      targetHandle: 'L-0',
      label: 'success',
    },
    { _key: 'e3', sheet: '0', source: 'fetch-api', sourceHandle: 'R-1', target: 'error-handler', targetHandle: 'L-0' },
  ],
  nodeTypeConfigs: [],
  retrieval: { query: 'what does the API node do', searchMode: 'bm25', cacheHit: false, durationMs: 1 },
};

const tools: LlmToolDefinition[] = [
  { type: 'function', function: { name: 'search_nodes', description: 'Search', parameters: {} } },
];

describe(OfflineLlmProvider.name, () => {
  it('says first that no model is configured and how to configure one, then answers from the retrieved context', async () => {
    const provider = new OfflineLlmProvider();
    const result = await collectLlmStream(
      provider.stream([{ role: 'user', content: 'What does the API node do?' }], tools, { retrievedContext: context }),
    );
    expect(result.text.startsWith('No language model is configured on this service')).toBe(true);
    expect(result.text).toContain('DEEPSEEK_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY');
    expect(result.text).toContain('The parts of graph "NBA stats workflow" most relevant to the question:');
    expect(result.text).toContain(
      '- fetch-api: API Call (type api-call), sheet "main"\n  process: // Fetch the active NBA players from the stats API.',
    );
    expect(result.text).toContain('  data: {"url":"https://api.nba-stats.example/v1/players"}');
    expect(result.text).toContain(
      '- filter-active: Filter (type filter), sheet "main"\n  process: const active = players.filter((p) => p.is_active);',
    );
    expect(result.text).toContain('- root: type starter, sheet "main"');
    expect(result.text).toContain('How they connect:\n- root → fetch-api\n- fetch-api → filter-active (success)');
    // Edges to nodes that are not shown are left out.
    expect(result.text).not.toContain('error-handler');
  });

  it('streams like the others: small token pieces, zero usage, done, never a tool call', async () => {
    const provider = new OfflineLlmProvider();
    const result = await collectLlmStream(
      provider.stream([{ role: 'user', content: 'q' }], tools, { retrievedContext: context }),
    );
    expect(result.tokenCount).toBeGreaterThan(50);
    expect(
      Math.max(
        ...result.chunks
          .filter((chunk) => chunk.type === 'token')
          .map((chunk) => (chunk.type === 'token' ? chunk.token.length : 0)),
      ),
    ).toBeLessThan(80);
    expect(result.toolCallStarts).toEqual([]);
    expect(result.toolCalls).toEqual([]);
    expect(result.usage).toEqual({ promptTokens: 0, completionTokens: 0, cachedTokens: 0, totalTokens: 0 });
    expect(result.chunks.slice(-2).map((chunk) => chunk.type)).toEqual(['usage', 'done']);
    expect(result.finishReason).toBe('stop');
    const completion = await provider.complete([{ role: 'user', content: 'q' }], tools, { retrievedContext: context });
    expect(completion.message).toEqual({ role: 'assistant', content: result.text });
    expect(provider).toMatchObject({ offline: true, providerName: 'offline', model: 'offline' });
  });

  it('answers in French', async () => {
    const provider = new OfflineLlmProvider({ locale: 'fr' });
    const { text } = await collectLlmStream(provider.stream([], [], { retrievedContext: context }));
    expect(text.startsWith("Aucun modèle de langage n'est configuré sur ce service")).toBe(true);
    expect(text).toContain('Les parties du graphe « NBA stats workflow » les plus pertinentes pour la question :');
    expect(text).toContain('  traitement: // Fetch the active NBA players');
    expect(text).toContain('Comment ils sont reliés :');
  });

  it('is honest when nothing was retrieved', async () => {
    const provider = new OfflineLlmProvider();
    expect((await provider.complete([], [], {})).message.content).toMatch(
      /No graph context was retrieved for this question\.$/,
    );
    const empty = { ...context, relevantNodes: [], relevantEdges: [] };
    expect((await provider.complete([], [], { retrievedContext: empty })).message.content).toMatch(
      /No node of graph "NBA stats workflow" matched the question\.$/,
    );
  });

  it('stops with an abort error when the signal fires', async () => {
    const provider = new OfflineLlmProvider();
    const controller = new AbortController();
    const tokens: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of provider.stream([], [], { retrievedContext: context, signal: controller.signal })) {
          if (chunk.type === 'token') tokens.push(chunk.token);
          if (tokens.length === 5) controller.abort();
        }
      })(),
    ).rejects.toBeInstanceOf(LlmAbortError);
    expect(tokens).toHaveLength(5);
  });
});

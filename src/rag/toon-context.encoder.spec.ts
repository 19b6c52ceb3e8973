import { decode } from '@toon-format/toon';
import { InMemoryGraphDataSource } from '../../test/support/in-memory-graph-data-source';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import { GraphRagRetriever } from './graph-rag.retriever';
import { RAG_CONTEXT_PREFIX } from './rag-context-prefix';
import { buildContextMessage, buildContextSummary } from './toon-context.encoder';

async function demoContext(query = 'fetch api NBA'): Promise<GraphRAGContext> {
  const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
  return new GraphRagRetriever().retrieve(source, DEMO_GRAPH_KEY, query);
}

/** Splits the summary into its two TOON blocks and decodes them. */
function decodeBlocks(summary: string): {
  nodes: Array<Record<string, unknown>>;
  edges: Array<Record<string, unknown>>;
} {
  const [nodesBlock, edgesBlock] = summary.split('\n\n');
  return {
    nodes: decode(nodesBlock.split('\n').slice(1).join('\n')) as Array<Record<string, unknown>>,
    edges: decode(edgesBlock.split('\n').slice(1).join('\n')) as Array<Record<string, unknown>>,
  };
}

describe(buildContextSummary.name, () => {
  it('encodes nodes and edges as TOON tables under English headers by default', async () => {
    const context = await demoContext();
    const summary = buildContextSummary(context);
    expect(summary.startsWith('RELEVANT NODES:\n')).toBe(true);
    expect(summary).toContain('\n\nRELEVANT EDGES:\n');
    expect(summary).toMatch(
      new RegExp(`^\\[${context.relevantNodes.length}\\]\\{key,type,sheet,process,data\\}:$`, 'm'),
    );
    expect(summary).toMatch(new RegExp(`^\\[${context.relevantEdges.length}\\]\\{from,to,label\\}:$`, 'm'));
    expect(summary).toMatch(/^ {2}fetch-api,api-call \(API Call\),main,/m);
    expect(summary).toMatch(/^ {2}root,starter,main,"",""$/m);
  });

  it('round-trips: every row decodes back to the context it came from', async () => {
    const context = await demoContext();
    const { nodes, edges } = decodeBlocks(buildContextSummary(context));
    expect(nodes).toEqual(
      context.relevantNodes.map((node) => ({
        key: node._key,
        type: node.type === node.typeName ? node.type : `${node.type} (${node.typeName})`,
        sheet: node.sheetName,
        process: node.process,
        data: node.dataSummary,
      })),
    );
    expect(edges).toContainEqual({ from: 'fetch-api:R-0', to: 'filter-active:L-0', label: 'success' });
    expect(edges).toContainEqual({ from: 'root:R-0', to: 'fetch-api:L-0', label: '' });
    expect(edges).toHaveLength(context.relevantEdges.length);
  });

  it('writes French headers for locale fr', async () => {
    const summary = buildContextSummary(await demoContext(), 'fr');
    expect(summary.startsWith('NODES PERTINENTS :\n')).toBe(true);
    expect(summary).toContain('\n\nEDGES PERTINENTES :\n');
  });

  it('shows the sheet name, not its id', async () => {
    const { nodes } = decodeBlocks(buildContextSummary(await demoContext('sort players points')));
    expect(nodes.find((node) => node.key === 'sort-stats')).toMatchObject({
      sheet: 'data-processing',
      type: 'transform (Transform)',
    });
  });

  it('encodes an empty context', async () => {
    const context = await demoContext();
    const summary = buildContextSummary({ ...context, relevantNodes: [], relevantEdges: [] });
    expect(decodeBlocks(summary)).toEqual({ nodes: [], edges: [] });
  });
});

describe(buildContextMessage.name, () => {
  it('starts with the locale prefix, then the summary', async () => {
    const context = await demoContext();
    expect(RAG_CONTEXT_PREFIX).toEqual({
      en: '[RAG context for this question]',
      fr: '[Contexte RAG pour cette question]',
    });
    expect(buildContextMessage(context)).toBe(`[RAG context for this question]\n${buildContextSummary(context)}`);
    expect(buildContextMessage(context, 'fr')).toBe(
      `[Contexte RAG pour cette question]\n${buildContextSummary(context, 'fr')}`,
    );
  });
});

import 'reflect-metadata';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { EMBEDDING_PROVIDER } from '../embeddings/embedding-provider.token';
import { DEMO_WORKSPACE } from '../graph/demo/nba-workflow.demo';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { TokenCounter } from '../rag/token-counter';
import { buildContextMessage } from '../rag/toon-context.encoder';
import { CliArguments } from './cli-arguments';
import { CliIo, openCliContext, runCli } from './cli-context';

const USAGE = 'Usage: npm run ai:dump-context -- --graph KEY [--workspace NAME] "question"';

/**
 * `npm run ai:dump-context`: what the AI is given for one question (seed 000 dump-context): the
 * GraphRAGContext the retriever builds (search hits, then the neighbours the expansion added),
 * the search mode (hybrid BM25 + vectors, BM25 alone, or the fallback), and the context message in
 * TOON exactly as it is sent to the model, with token counts. Uses the configured store and
 * embedding provider; an empty store gets the demo graph, as the service does at first start.
 */
export async function dumpContext(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let args: CliArguments;
  try {
    args = CliArguments.parse(argv, { options: ['graph', 'workspace'], maxPositionals: 100 });
    if (!args.option('graph') || args.positionals.length === 0) throw new Error('A graph (--graph KEY) and a question are required');
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const graphKey = args.option('graph') as string;
  const workspace = args.option('workspace') ?? DEMO_WORKSPACE;
  const question = args.positionals.join(' ');

  const cli = await openCliContext(env, { seedDemo: true });
  try {
    const retriever = cli.app.get(GraphRagRetriever, { strict: false });
    const provider = cli.app.get<EmbeddingProvider | null>(EMBEDDING_PROVIDER, { strict: false });
    const counter = cli.app.get(TokenCounter, { strict: false });
    const source = cli.app.get(GraphDataSourceFactory, { strict: false }).forWorkspace(workspace);
    const context = await retriever.retrieve(source, graphKey, question);
    const message = buildContextMessage(context, cli.config.locale);
    const json = JSON.stringify(context, null, 2);
    const { searchMode, durationMs } = context.retrieval;
    const mode =
      searchMode === 'hybrid'
        ? `hybrid (BM25 + ${provider?.modelName} vectors, fused by reciprocal rank)`
        : searchMode === 'bm25'
          ? `bm25 only (${provider ? 'no vector for this question' : 'EMBEDDING_PROVIDER=none'})`
          : 'fallback (nothing matched: the first nodes of the graph)';
    const searchHits = context.relevantNodes.filter((node) => node.origin === 'search').length;
    const toonTokens = counter.count(message);
    const jsonTokens = counter.count(JSON.stringify({ nodes: context.relevantNodes, edges: context.relevantEdges }));

    io.stdout.write(
      [
        `Graph ${workspace}/${graphKey} — question: ${JSON.stringify(question)}`,
        `Search mode: ${mode}`,
        `Context: ${context.relevantNodes.length} nodes (${searchHits} search hits, then mentions and neighbours), ` +
          `${context.relevantEdges.length} edges, ${context.nodeTypeConfigs.length} node types, retrieved in ${durationMs} ms`,
        '',
        '=== GraphRAGContext (JSON) ===',
        json,
        '',
        '=== Context message, as sent to the model (TOON) ===',
        message,
        '',
        `Tokens (o200k): context message ${toonTokens}; the same nodes and edges as JSON ${jsonTokens}` +
          (jsonTokens > 0 ? ` (TOON saves ${Math.round((1 - toonTokens / jsonTokens) * 100)} %)` : ''),
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await cli.close();
  }
}

if (require.main === module) runCli(dumpContext);

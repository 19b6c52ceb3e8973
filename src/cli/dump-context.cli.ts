import 'reflect-metadata';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { EMBEDDING_PROVIDER } from '../embeddings/embedding-provider.token';
import { TokenCounter } from '../rag/token-counter';
import { buildContextMessage } from '../rag/toon-context.encoder';
import { CliIo, openCliContext, runCli } from './cli-context';
import { GraphQuestion, parseGraphQuestion, retrieveQuestionContext } from './graph-question';

const USAGE = 'Usage: npm run ai:dump-context -- --graph KEY [--workspace NAME] "question"';

/**
 * `npm run ai:dump-context`: what the AI is given for one question: the
 * GraphRAGContext the retriever builds (search hits, then the neighbours the expansion added),
 * the search mode (hybrid BM25 + vectors, BM25 alone, or the fallback), and the context message in
 * TOON exactly as it is sent to the model, with token counts. Uses the configured store and
 * embedding provider; an empty store gets the demo graph, as the service does at first start.
 */
export async function dumpContext(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let question: GraphQuestion;
  try {
    question = parseGraphQuestion(argv).question;
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { graphKey, workspace } = question;

  const cli = await openCliContext(env, { seedDemo: true });
  try {
    const provider = cli.app.get<EmbeddingProvider | null>(EMBEDDING_PROVIDER, { strict: false });
    const counter = cli.app.get(TokenCounter, { strict: false });
    const { context } = await retrieveQuestionContext(cli.app, question);
    const message = buildContextMessage(context, cli.config.locale);
    const json = JSON.stringify(context, null, 2);
    const { searchMode, durationMs } = context.retrieval;
    const mode =
      searchMode === 'hybrid'
        ? `hybrid (BM25 + ${provider?.modelName} vectors, fused by normalised score)`
        : searchMode === 'bm25'
          ? `bm25 only (${provider ? 'no vector for this question' : 'EMBEDDING_PROVIDER=none'})`
          : 'fallback (nothing matched: the first nodes of the graph)';
    const searchHits = context.relevantNodes.filter((node) => node.origin === 'search').length;
    const toonTokens = counter.count(message);
    const jsonTokens = counter.count(JSON.stringify({ nodes: context.relevantNodes, edges: context.relevantEdges }));

    io.stdout.write(
      [
        `Graph ${workspace}/${graphKey} — question: ${JSON.stringify(question.text)}`,
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

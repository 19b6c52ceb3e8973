import { INestApplicationContext } from '@nestjs/common';
import { DEMO_WORKSPACE } from '../graph/demo/nba-workflow.demo';
import { GraphDataSource } from '../graph/graph-data-source';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { CliArguments } from './cli-arguments';

/** What ai:dump-context and ai:dump-prompt are asked: a question about one graph of a workspace. */
export interface GraphQuestion {
  graphKey: string;
  workspace: string;
  text: string;
}

/**
 * `--graph KEY [--workspace NAME] words of the question…` plus the command's own `options`; the
 * workspace defaults to the demo's. Throws an Error naming what is wrong (the command prints it
 * with its usage).
 */
export function parseGraphQuestion(
  argv: readonly string[],
  options: string[] = [],
): { args: CliArguments; question: GraphQuestion } {
  const args = CliArguments.parse(argv, { options: ['graph', 'workspace', ...options], maxPositionals: 100 });
  const graphKey = args.option('graph');
  if (!graphKey || args.positionals.length === 0) throw new Error('A graph (--graph KEY) and a question are required');
  return {
    args,
    question: { graphKey, workspace: args.option('workspace') ?? DEMO_WORKSPACE, text: args.positionals.join(' ') },
  };
}

/** The workspace's data source and the context the retriever builds for the question, as QuestionRun gets them. */
export async function retrieveQuestionContext(
  app: INestApplicationContext,
  question: GraphQuestion,
): Promise<{ source: GraphDataSource; context: GraphRAGContext }> {
  const source = app.get(GraphDataSourceFactory, { strict: false }).forWorkspace(question.workspace);
  const context = await app
    .get(GraphRagRetriever, { strict: false })
    .retrieve(source, question.graphKey, question.text);
  return { source, context };
}

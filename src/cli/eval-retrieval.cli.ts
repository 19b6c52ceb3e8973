import 'reflect-metadata';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { loadAppConfig } from '../config/load-app-config';
import { detectEmbeddingProvider } from '../embeddings/embedding-provider.detector';
import { configureLogging } from '../observability/logger';
import { DEFAULT_GRAPH_RAG_OPTIONS } from '../rag/graph-rag-options';
import { CliArguments } from './cli-arguments';
import { CliIo, runCli } from './cli-context';
import { describeMiss, formatTable, reportTable } from './retrieval-eval.report';
import { EvalHalf, halfOf, loadQuestionSet } from './retrieval-eval.questions';
import { runRetrievalEval } from './retrieval-eval.runner';

const USAGE =
  'Usage: npm run eval:retrieval -- [--half tune|test] [--bm25] [--union-nodes N] [--questions FILE] [--fixtures DIR] [--verbose]';
const DEFAULT_UNION_NODES = 5_000;

/**
 * `npm run eval:retrieval`: recall of the contexts GraphRagRetriever builds for the labelled
 * question set test/retrieval-eval/questions.json (410 questions over the 62 real workflows, and the
 * same questions on a 5,000-node union of workflows), per group and per half (tuning / test), with
 * the service's defaults and the configured embedding provider (the local one by default, no key, no
 * network).
 */
export async function evalRetrieval(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): Promise<number> {
  let args: CliArguments;
  let questionsFile: string;
  let fixturesDir: string;
  let halves: EvalHalf[];
  let unionNodes: number;
  try {
    args = CliArguments.parse(argv, {
      flags: ['verbose', 'bm25'],
      options: ['questions', 'fixtures', 'half', 'union-nodes'],
    });
    questionsFile = args.option('questions') ?? locate(path.join('test', 'retrieval-eval', 'questions.json'));
    fixturesDir = args.option('fixtures') ?? env.SHARED_FIXTURES_DIR ?? locate(path.join('..', 'shared', 'fixtures'));
    const half = args.option('half');
    if (half !== undefined && half !== 'tune' && half !== 'test') throw new Error('--half must be tune or test');
    halves = half ? [half] : ['tune', 'test'];
    unionNodes = Number(args.option('union-nodes') ?? DEFAULT_UNION_NODES);
    if (!Number.isInteger(unionNodes) || unionNodes < 0)
      throw new Error('--union-nodes must be a whole number (0: no union)');
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }

  const config = loadAppConfig(env);
  configureLogging({ level: 'error' });
  const provider = args.flag('bm25') ? null : detectEmbeddingProvider(config);
  const set = loadQuestionSet(questionsFile);
  // A half that is not reported is not even asked: nothing of it can leak into a tuning run.
  const questions = set.questions.filter((question) => halves.includes(halfOf(question.id)));
  const started = Date.now();
  const results = await runRetrievalEval(questions, {
    fixturesDir,
    questionsFixturesDir: set.fixturesDir,
    provider,
    batchSize: config.embeddings.batchSize,
    unionNodes,
    onStage: (stage) => io.stderr.write(`evaluating on ${stage}...\n`),
  });

  const { maxNodes, maxDepth } = DEFAULT_GRAPH_RAG_OPTIONS;
  io.stdout.write(
    `Retrieval evaluation: ${questions.length} questions (${halves.join(' + ')}) of ${path.relative(process.cwd(), questionsFile) || questionsFile}` +
      `${unionNodes > 0 ? `, on their own graph and on a ${unionNodes}-node union` : ''}\n` +
      `Pipeline: GraphRagRetriever defaults (maxNodes ${maxNodes}, maxDepth ${maxDepth}), ` +
      `${provider ? `hybrid, vectors ${provider.modelName}` : 'BM25 only (no vectors)'}\n` +
      `R@5, R@10: share of the labelled nodes among the first 5, 10 context nodes; R@ctx: among all of them (at most ${maxNodes})\n\n` +
      `${formatTable(reportTable(results, halves))}\n\n` +
      `${results.length} retrievals in ${((Date.now() - started) / 1000).toFixed(1)} s (imports and embedding included); ` +
      `mean retrieval ${(results.reduce((sum, result) => sum + result.durationMs, 0) / Math.max(1, results.length)).toFixed(1)} ms\n`,
  );
  if (args.flag('verbose')) {
    for (const result of results) {
      const miss = describeMiss(result);
      if (miss) io.stdout.write(`\n${miss}\n`);
    }
  }
  return 0;
}

/** `relative` from the working directory or the first of its parents that has it. */
function locate(relative: string): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`Cannot find ${relative}`);
  }
}

if (require.main === module) runCli(evalRetrieval);

import 'reflect-metadata';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import pLimit from 'p-limit';
import { loadAppConfig } from '../config/load-app-config';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { detectEmbeddingProvider } from '../embeddings/embedding-provider.detector';
import { GraphNodeEmbedder } from '../embeddings/graph-node.embedder';
import { GraphDocument } from '../graph/graph.types';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../observability/logger';
import { VECTOR_MIN_SCORE } from '../rag/graph-rag-options';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { CliArguments } from './cli-arguments';
import { CliIo, runCli } from './cli-context';
import { mean, recallAtK, reciprocalRankAtK } from './retrieval-eval.metrics';

const USAGE = 'Usage: npm run eval:retrieval -- [--questions FILE] [--fixtures DIR] [--verbose]';
const K = 10;
const WORKSPACE = 'eval';

interface EvalQuestion {
  graph: string;
  style: string;
  question: string;
  relevant: string[];
}

interface QuestionResult {
  question: EvalQuestion;
  bm25: string[];
  hybrid: string[];
  hybridMode: string;
  /** Diagnostic: the vector ranking alone (what the fusion adds to BM25). */
  vector: string[];
}

/**
 * `npm run eval:retrieval`: recall@10 and MRR@10 of BM25 alone against hybrid (BM25 + vectors,
 * fused by reciprocal rank) on the labelled question set test/retrieval-eval/questions.json.
 * Each graph of the set is imported into a temporary embedded store and embedded with the
 * configured embedding provider (the local one by default, no key, no network); each question is
 * asked to GraphRagRetriever twice (without and with the provider) with no neighbourhood expansion,
 * so the ranked search hits are measured, not the expanded context. Labels are never read before
 * the rankings are computed.
 */
export async function evalRetrieval(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let args: CliArguments;
  let questionsFile: string;
  let fixturesDir: string;
  try {
    args = CliArguments.parse(argv, { flags: ['verbose'], options: ['questions', 'fixtures'] });
    questionsFile = args.option('questions') ?? locate(path.join('test', 'retrieval-eval', 'questions.json'));
    fixturesDir = args.option('fixtures') ?? env.SHARED_FIXTURES_DIR ?? locate(path.join('..', 'shared', 'fixtures'));
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }

  const config = loadAppConfig(env);
  configureLogging({ level: 'error' });
  const provider = detectEmbeddingProvider(config);
  if (!provider) {
    io.stderr.write('EMBEDDING_PROVIDER=none: there is no hybrid retrieval to compare with BM25.\n');
    return 2;
  }
  const set = JSON.parse(readFileSync(questionsFile, 'utf8')) as { fixturesDir: string; questions: EvalQuestion[] };
  const graphs = [...new Set(set.questions.map((question) => question.graph))];
  io.stdout.write(
    `Retrieval evaluation: ${set.questions.length} questions over ${graphs.length} graphs (${path.relative(process.cwd(), questionsFile) || questionsFile})\n` +
      `Vectors: ${provider.modelName}; ranked search hits of GraphRagRetriever (top ${K}, no expansion); RRF fusion k=60\n\n`,
  );

  const results: QuestionResult[] = [];
  const sizes = new Map<string, number>();
  for (const graphKey of graphs) {
    const document = loadGraph(path.join(fixturesDir, set.fixturesDir, `${graphKey}.json`));
    sizes.set(graphKey, document.nodes.length);
    const questions = set.questions.filter((question) => question.graph === graphKey);
    results.push(...(await evaluateGraph(document, questions, provider, config.embeddings.batchSize)));
  }

  const table = [['graph', 'nodes', 'questions', `R@${K} bm25`, `R@${K} hybrid`, `MRR bm25`, `MRR hybrid`, `R@${K} vector alone`]];
  const row = (label: string, nodes: string, subset: QuestionResult[]) => [
    label,
    nodes,
    String(subset.length),
    ...scores(subset).map((value) => value.toFixed(3)),
  ];
  for (const graphKey of graphs) table.push(row(graphKey, String(sizes.get(graphKey)), results.filter((result) => result.question.graph === graphKey)));
  table.push(row('overall', '', results));
  const styles = [...new Set(results.map((result) => result.question.style))];
  table.push(['', '', '', '', '', '', '', '']);
  for (const style of styles) table.push(row(`style: ${style}`, '', results.filter((result) => result.question.style === style)));
  io.stdout.write(`${formatTable(table)}\n`);

  const modes = countBy(results.map((result) => result.hybridMode));
  const delta = results.map((result) => recallAtK(result.hybrid, result.question.relevant, K) - recallAtK(result.bm25, result.question.relevant, K));
  io.stdout.write(
    `\nHybrid search modes: ${Object.entries(modes).map(([mode, count]) => `${mode} ${count}`).join(', ')}\n` +
      `Questions where hybrid recall@${K} is higher than BM25: ${delta.filter((value) => value > 0).length}, lower: ${delta.filter((value) => value < 0).length}, equal: ${delta.filter((value) => value === 0).length}\n` +
      `(vector alone: the provider's cosine ranking above its noise floor, shown to explain the fusion; not a retrieval mode of the service)\n`,
  );
  if (args.flag('verbose')) {
    for (const result of results) {
      const { question } = result;
      io.stdout.write(
        `\n[${question.graph}] (${question.style}) ${question.question}\n  relevant: ${question.relevant.join(', ')}\n` +
          `  bm25   R=${recallAtK(result.bm25, question.relevant, K).toFixed(2)}: ${result.bm25.join(', ')}\n` +
          `  hybrid R=${recallAtK(result.hybrid, question.relevant, K).toFixed(2)}: ${result.hybrid.join(', ')}\n` +
          `  vector R=${recallAtK(result.vector, question.relevant, K).toFixed(2)}: ${result.vector.join(', ')}\n`,
      );
    }
  }
  return 0;
}

async function evaluateGraph(document: GraphDocument, questions: EvalQuestion[], provider: EmbeddingProvider, batchSize: number): Promise<QuestionResult[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'eval-retrieval-'));
  const db = openSqliteDatabase(dataDir);
  try {
    const store = new SqliteGraphStore(db);
    const graphKey = document.graph._key;
    await store.importGraph(WORKSPACE, document);
    const embedder = new GraphNodeEmbedder(store, provider, { batchSize, limiter: pLimit(1) });
    const report = await embedder.embedGraph(WORKSPACE, graphKey, 'all');
    if (report.failed > 0) throw new Error(`${report.failed} node(s) of ${graphKey} could not be embedded`);
    const options = { maxNodes: K, cacheTTLMs: 0 };
    const bm25 = new GraphRagRetriever({ ...options, embeddingProvider: null });
    const hybrid = new GraphRagRetriever({ ...options, embeddingProvider: provider });
    const source = store.forWorkspace(WORKSPACE);
    const results: QuestionResult[] = [];
    for (const question of questions) {
      const [lexical, fused] = await Promise.all([
        bm25.retrieve(source, graphKey, question.question, { maxDepth: 0 }),
        hybrid.retrieve(source, graphKey, question.question, { maxDepth: 0 }),
      ]);
      const query = { vector: await provider.embedOne(question.question), model: provider.modelName, minScore: provider.minSimilarity ?? VECTOR_MIN_SCORE };
      const vector = (await source.searchNodesByVector(graphKey, query, K)).map((hit) => hit.node._key);
      results.push({ question, bm25: searchHits(lexical), hybrid: searchHits(fused), hybridMode: fused.retrieval.searchMode, vector });
    }
    return results;
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The ranked search hits of a context; the fallback (first nodes of the graph when nothing matched) is no hit. */
function searchHits(context: Awaited<ReturnType<GraphRagRetriever['retrieve']>>): string[] {
  if (context.retrieval.searchMode === 'fallback') return [];
  return context.relevantNodes.filter((node) => node.origin === 'search').map((node) => node._key);
}

function scores(results: QuestionResult[]): number[] {
  return [
    mean(results.map((result) => recallAtK(result.bm25, result.question.relevant, K))),
    mean(results.map((result) => recallAtK(result.hybrid, result.question.relevant, K))),
    mean(results.map((result) => reciprocalRankAtK(result.bm25, result.question.relevant, K))),
    mean(results.map((result) => reciprocalRankAtK(result.hybrid, result.question.relevant, K))),
    mean(results.map((result) => recallAtK(result.vector, result.question.relevant, K))),
  ];
}

function loadGraph(file: string): GraphDocument {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as GraphDocument;
  // The fixtures carry provenance blocks (source, n8n) an importer ignores.
  return { graph: raw.graph, nodes: raw.nodes, edges: raw.edges, nodeConfigs: raw.nodeConfigs ?? [] };
}

/** The first existing path among `relative` searched upwards from the working directory, then the fallbacks. */
/** `relative` from the working directory or the first of its parents that has it. */
function locate(relative: string): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`Cannot find ${relative}`);
  }
}

function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ').trimEnd())
    .join('\n');
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

if (require.main === module) runCli(evalRetrieval);

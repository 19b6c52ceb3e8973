import { decode } from '@toon-format/toon';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import pLimit from 'p-limit';
import { openSqliteDatabase } from '../src/database/sqlite/sqlite-database.opener';
import { GraphNodeEmbedder } from '../src/embeddings/graph-node.embedder';
import { LocalHashEmbeddingProvider } from '../src/embeddings/local-hash-embedding.provider';
import { GraphDataSourceFactory } from '../src/graph/graph-data-source.factory';
import { GraphDocument } from '../src/graph/graph.types';
import { SqliteGraphStore } from '../src/graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../src/observability/logger';
import { GraphRAGContext } from '../src/conversation/graph-rag-context';
import { GraphRagRetriever } from '../src/rag/graph-rag.retriever';
import { RAG_CONTEXT_PREFIX } from '../src/rag/rag-context-prefix';
import { TokenCounter } from '../src/rag/token-counter';
import { buildContextMessage, buildContextSummary } from '../src/rag/toon-context.encoder';
import { sharedFixturePath } from '../test/support/shared-fixtures';
import { median } from './bench-statistics';
import { formatTable } from './bench-table';
import { repositoryPath } from './repository-path';

/**
 * Tokens of the per-question context (DESIGN.md budget: TOON at least 30 % fewer tokens than the
 * same context as JSON), counted with the project's TokenCounter (o200k_base), over the labelled
 * questions of test/retrieval-eval (real questions on real workflow graphs of the shared fixtures),
 * each retrieved by GraphRagRetriever as the service does (embedded store, hybrid with the local
 * embeddings, 20 nodes, depth 2). The TOON side is the context message exactly as sent to the
 * model (buildContextMessage). It is compared with:
 *   - `rows, pretty JSON` / `rows, compact JSON`: the same message with each TOON table replaced by
 *     JSON.stringify(rows, null, 2) / JSON.stringify(rows) of the very same rows (decoded back from
 *     the TOON, so nothing is added or lost), same prefix and headers: the like-for-like comparison;
 *   - `GraphRAGContext, pretty JSON` / `compact JSON`: JSON.stringify(context, null, 2) /
 *     JSON.stringify(context) of the GraphRAGContext object the TOON is built from (it also holds
 *     handles, node-type configs, scores and origins, which the TOON leaves out).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/context-size.bench.js
 */

const WORKSPACE = 'bench';
const LOCALE = 'en';

interface EvalQuestion {
  graph: string;
  question: string;
}

export const JSON_FORMATS = [
  'rows, pretty JSON',
  'rows, compact JSON',
  'GraphRAGContext, pretty JSON',
  'GraphRAGContext, compact JSON',
] as const;
export type JsonFormat = (typeof JSON_FORMATS)[number];

export interface ContextSizeComparison {
  format: JsonFormat;
  jsonTokens: number;
  /** 1 − TOON / JSON over all questions' tokens summed. */
  saving: number;
  medianSaving: number;
  minSaving: number;
  /** Questions whose own saving is at least 30 %. */
  questionsAtBudget: number;
}

export interface ContextSizeResult {
  graphs: number;
  questions: number;
  avgContextNodes: number;
  toonTokens: number;
  comparisons: ContextSizeComparison[];
}

function loadGraph(file: string): GraphDocument {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as GraphDocument;
  return { graph: raw.graph, nodes: raw.nodes, edges: raw.edges, nodeConfigs: raw.nodeConfigs ?? [] };
}

/** The context message with its TOON tables replaced by JSON of the same rows (decoded from them). */
function rowsAsJson(context: GraphRAGContext, space: number | undefined): string {
  const tables = buildContextSummary(context, LOCALE).split('\n\n');
  if (tables.length !== 2) throw new Error(`expected two TOON tables, got ${tables.length}`);
  const blocks = tables.map((table, index) => {
    const [header, ...lines] = table.split('\n');
    const rows = decode(lines.join('\n')) as unknown[];
    const expected = index === 0 ? context.relevantNodes.length : context.relevantEdges.length;
    if (rows.length !== expected) throw new Error(`decoded ${rows.length} rows, expected ${expected}`);
    return `${header}\n${JSON.stringify(rows, null, space)}`;
  });
  return `${RAG_CONTEXT_PREFIX[LOCALE]}\n${blocks.join('\n\n')}`;
}

const SERIALIZERS: Record<JsonFormat, (context: GraphRAGContext) => string> = {
  'rows, pretty JSON': (context) => rowsAsJson(context, 2),
  'rows, compact JSON': (context) => rowsAsJson(context, undefined),
  'GraphRAGContext, pretty JSON': (context) => JSON.stringify(context, null, 2),
  'GraphRAGContext, compact JSON': (context) => JSON.stringify(context),
};

export async function runContextSizeBench(): Promise<ContextSizeResult> {
  configureLogging({ level: 'error' });
  const set = JSON.parse(readFileSync(repositoryPath('test', 'retrieval-eval', 'questions.json'), 'utf8')) as {
    fixturesDir: string;
    questions: EvalQuestion[];
  };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'context-size-bench-'));
  const db = openSqliteDatabase(dataDir);
  const store = new SqliteGraphStore(db);
  const provider = new LocalHashEmbeddingProvider();
  const embedder = new GraphNodeEmbedder(store, provider, { batchSize: 256, limiter: pLimit(1) });
  const retriever = new GraphRagRetriever({ embeddingProvider: provider, cacheTTLMs: 0 });
  const source = new GraphDataSourceFactory(store).forWorkspace(WORKSPACE);
  const counter = new TokenCounter();
  const graphs = [...new Set(set.questions.map((question) => question.graph))];
  const toon: number[] = [];
  const json: Record<JsonFormat, number[]> = Object.fromEntries(
    JSON_FORMATS.map((format) => [format, []]),
  ) as unknown as Record<JsonFormat, number[]>;
  let contextNodes = 0;
  try {
    for (const graphKey of graphs) {
      await store.importGraph(
        WORKSPACE,
        loadGraph(sharedFixturePath(...set.fixturesDir.split('/'), `${graphKey}.json`)),
      );
      await embedder.embedGraph(WORKSPACE, graphKey, 'all');
      for (const { question } of set.questions.filter((entry) => entry.graph === graphKey)) {
        const context = await retriever.retrieve(source, graphKey, question);
        contextNodes += context.relevantNodes.length;
        toon.push(counter.count(buildContextMessage(context, LOCALE)));
        for (const format of JSON_FORMATS) json[format].push(counter.count(SERIALIZERS[format](context)));
      }
    }
  } finally {
    await store.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const toonTokens = sum(toon);
  return {
    graphs: graphs.length,
    questions: toon.length,
    avgContextNodes: contextNodes / toon.length,
    toonTokens,
    comparisons: JSON_FORMATS.map((format) => {
      const savings = json[format].map((tokens, index) => 1 - toon[index] / tokens);
      return {
        format,
        jsonTokens: sum(json[format]),
        saving: 1 - toonTokens / sum(json[format]),
        medianSaving: median(savings),
        minSaving: Math.min(...savings),
        questionsAtBudget: savings.filter((saving) => saving >= 0.3).length,
      };
    }),
  };
}

export function contextSizeTable(result: ContextSizeResult): string[] {
  const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
  return formatTable(
    [
      'TOON compared with',
      'JSON tokens',
      'TOON tokens',
      'saving (sum)',
      'median saving',
      'min saving',
      `questions ≥ 30 %`,
    ],
    result.comparisons.map((row) => [
      row.format,
      String(row.jsonTokens),
      String(result.toonTokens),
      percent(row.saving),
      percent(row.medianSaving),
      percent(row.minSaving),
      `${row.questionsAtBudget}/${result.questions}`,
    ]),
  );
}

if (require.main === module) {
  runContextSizeBench()
    .then((result) => {
      console.log(
        `Context tokens (o200k_base), ${result.questions} questions over ${result.graphs} real graphs, ${result.avgContextNodes.toFixed(1)} nodes per context on average`,
      );
      for (const line of contextSizeTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

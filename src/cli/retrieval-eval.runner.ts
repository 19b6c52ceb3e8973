import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import pLimit from 'p-limit';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { GraphNodeEmbedder } from '../embeddings/graph-node.embedder';
import { GraphDataSource } from '../graph/graph-data-source';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { GraphDocument } from '../graph/graph.types';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { EvalQuestion, unionQuestionText } from './retrieval-eval.questions';
import { buildWorkflowUnion, readWorkflowLines, WorkflowFixture } from './workflow-union.builder';

const WORKSPACE = 'eval';

/** One question asked on one graph: the context's node keys in rank order. */
export interface QuestionResult {
  question: EvalQuestion;
  /** Where it was asked: `graph` (its own workflow) or `union`. */
  scope: 'graph' | 'union';
  /** Nodes in the graph it was asked on. */
  graphNodes: number;
  /** Nodes of its own workflow (the size band it is reported under). */
  workflowNodes: number;
  /** The labels, as keys of the graph it was asked on. */
  relevant: string[];
  /** context.relevantNodes keys, in their order (search hits first, then neighbours). */
  ranked: string[];
  searchMode: string;
  durationMs: number;
}

export interface RetrievalEvalOptions {
  fixturesDir: string;
  questionsFixturesDir: string;
  provider: EmbeddingProvider | null;
  batchSize: number;
  /** Nodes of the union of all the set's workflows and pool distractors; 0 = no union. */
  unionNodes: number;
  /** Called before each stage, for progress on stderr. */
  onStage?: (stage: string) => void;
}

/**
 * Runs the question set through GraphRagRetriever as the service does (defaults: 20 context nodes,
 * depth-2 expansion; the production read path, store + live overlay), on a temporary embedded store:
 * every graph of the set, then a union of all of them with pool workflows as distractors, where
 * each question names its workflow. Labels are only used to score, after the contexts are built.
 */
export async function runRetrievalEval(
  questions: readonly EvalQuestion[],
  options: RetrievalEvalOptions,
): Promise<QuestionResult[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'eval-retrieval-'));
  const db = openSqliteDatabase(dataDir);
  const store = new SqliteGraphStore(db);
  try {
    const source = new GraphDataSourceFactory(store).forWorkspace(WORKSPACE);
    const retriever = new GraphRagRetriever({ cacheTTLMs: 0, embeddingProvider: options.provider });
    const embedder = options.provider
      ? new GraphNodeEmbedder(store, options.provider, { batchSize: options.batchSize, limiter: pLimit(1) })
      : null;
    const prepare = async (document: GraphDocument) => {
      await store.importGraph(WORKSPACE, document);
      const report = await embedder?.embedGraph(WORKSPACE, document.graph._key, 'all');
      if (report && report.failed > 0)
        throw new Error(`${report.failed} node(s) of ${document.graph._key} could not be embedded`);
    };

    const graphKeys = [...new Set(questions.map((question) => question.graph))];
    const workflows = graphKeys.map((graphKey) =>
      loadWorkflow(path.join(options.fixturesDir, options.questionsFixturesDir, `${graphKey}.json`)),
    );
    const sizes = new Map(workflows.map((workflow) => [workflow.graph._key, workflow.nodes.length]));
    const results: QuestionResult[] = [];

    options.onStage?.(`${graphKeys.length} graphs`);
    for (const workflow of workflows) {
      const graphKey = workflow.graph._key;
      await prepare(workflow);
      for (const question of questions.filter((candidate) => candidate.graph === graphKey)) {
        const size = sizes.get(graphKey) as number;
        results.push(
          await ask(retriever, source, graphKey, question.question, {
            question,
            scope: 'graph',
            graphNodes: size,
            workflowNodes: size,
            relevant: question.relevant,
          }),
        );
      }
    }

    if (options.unionNodes > 0) {
      options.onStage?.(`a ${options.unionNodes}-node union`);
      const pool = readWorkflowLines(path.join(options.fixturesDir, 'workflows', 'pool', 'pool.jsonl.gz'));
      const union = buildWorkflowUnion(interleave(workflows, pool, options.unionNodes), {
        nodeCount: options.unionNodes,
        graphKey: `union-${options.unionNodes}`,
        workspace: WORKSPACE,
        name: `Workspace union (${options.unionNodes} nodes)`,
      });
      const sheetOf = new Map(
        union.sheets.filter((sheet) => sizes.has(sheet.workflowKey)).map((sheet) => [sheet.workflowKey, sheet]),
      );
      const nodesPerSheet = countBy(union.document.nodes.map((node) => node.sheet));
      const cut = graphKeys.filter(
        (graphKey) => nodesPerSheet.get(sheetOf.get(graphKey)?.sheet ?? '') !== sizes.get(graphKey),
      );
      if (cut.length > 0)
        throw new Error(`The union is too small to hold every graph of the set whole (${cut.join(', ')})`);
      await prepare(union.document);
      for (const question of questions) {
        const sheet = sheetOf.get(question.graph) as (typeof union.sheets)[number];
        results.push(
          await ask(retriever, source, union.document.graph._key, unionQuestionText(question, sheet.name), {
            question,
            scope: 'union',
            graphNodes: union.document.nodes.length,
            workflowNodes: sizes.get(question.graph) as number,
            relevant: question.relevant.map((key) => sheet.prefix + key),
          }),
        );
      }
    }
    return results;
  } finally {
    await store.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function ask(
  retriever: GraphRagRetriever,
  source: GraphDataSource,
  graphKey: string,
  text: string,
  result: Omit<QuestionResult, 'ranked' | 'searchMode' | 'durationMs'>,
): Promise<QuestionResult> {
  const context = await retriever.retrieve(source, graphKey, text);
  return {
    ...result,
    ranked: context.relevantNodes.map((node) => node._key),
    searchMode: context.retrieval.searchMode,
    durationMs: context.retrieval.durationMs,
  };
}

/** A fixture graph as an importer takes it (its provenance blocks are left out). */
function loadWorkflow(file: string): GraphDocument {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as GraphDocument;
  return {
    graph: { ...raw.graph, workspace: WORKSPACE },
    nodes: raw.nodes,
    edges: raw.edges,
    nodeConfigs: raw.nodeConfigs ?? [],
  };
}

/**
 * The set's workflows spread evenly among the distractors (the same number of pool workflows before
 * each), so they are neither all first (they would win every tie of insertion order) nor cut off
 * by the node count; the pool fills the rest.
 */
function interleave(
  workflows: readonly WorkflowFixture[],
  pool: readonly WorkflowFixture[],
  nodeCount: number,
): WorkflowFixture[] {
  const ownNodes = workflows.reduce((sum, workflow) => sum + workflow.nodes.length, 0);
  const poolAverage = pool.reduce((sum, workflow) => sum + workflow.nodes.length, 0) / Math.max(1, pool.length);
  // 90 % of the room for distractors, so the last workflow of the set is never the one cut.
  const every = Math.floor((0.9 * Math.max(0, nodeCount - ownNodes)) / poolAverage / Math.max(1, workflows.length));
  const mixed: WorkflowFixture[] = [];
  let next = 0;
  for (const workflow of workflows) {
    mixed.push(...pool.slice(next, next + every), workflow);
    next += every;
  }
  return [...mixed, ...pool.slice(next)];
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

import { performance } from 'node:perf_hooks';
import type { LimitFunction } from 'p-limit';
import { GraphDataSource } from '../graph/graph-data-source';
import { GraphStore, NodeEmbeddingWrite, StoredEmbeddingState } from '../graph/graph-store';
import { GraphNode, NodeTypeConfig } from '../graph/graph.types';
import { Logger } from '../observability/logger';
import { isAbortError } from '../providers/llm-abort.error';
import { EmbeddingBatchRunner, EmbeddingBatchRunnerOptions } from './embedding-batch.runner';
import { EmbeddingProvider } from './embedding-provider';
import { EmbeddingRunReport, emptyEmbeddingRunReport } from './embedding-run.report';
import { planNodeEmbedding } from './node-embedding.planner';
import { describeUpstreamError } from '../observability/upstream-error.masker';

export interface GraphNodeEmbedderOptions extends EmbeddingBatchRunnerOptions {
  /** Texts per upstream call (EMBEDDING_BATCH_SIZE). */
  batchSize: number;
  /** A p-limit bounding concurrent batches (EMBEDDING_CONCURRENCY), shared by every run of one embedder. */
  limiter: LimitFunction;
}

export interface EmbedGraphOptions {
  /** Embed every node with a text, current vector or not. */
  force?: boolean;
  signal?: AbortSignal;
  /** Called after each node is decided and after each batch lands (progress bars). */
  onProgress?: (report: Readonly<EmbeddingRunReport>, total: number) => void;
}

/** The nodes of a graph to look at: some keys (created or changed ones), or all of them. */
export type NodeSelection = string[] | 'all';

interface PendingText {
  nodeKey: string;
  text: string;
  hash: string;
}

const logger = new Logger('embeddings');

/** Nodes read per page of a run: a few milliseconds of reading and decoding. */
const READ_PAGE_NODES = 500;

/**
 * Gives the stored nodes of one graph the vectors they lack (the write path): reads the selected nodes,
 * their type configs and stored embedding states from the GraphStore, skips empty texts and current vectors
 * (same model, same text hash), embeds the rest in batches of `batchSize` (at most `limiter.concurrency`
 * batches at once), and stores each batch's vectors with their model and text hash. A failed text never
 * stops the others; each batch logs one summary line (counts, never content). Works on whichever store is
 * configured; reads the store, never the live overlay.
 */
export class GraphNodeEmbedder {
  private readonly runner: EmbeddingBatchRunner;

  constructor(
    private readonly store: GraphStore,
    readonly provider: EmbeddingProvider,
    private readonly options: GraphNodeEmbedderOptions,
  ) {
    this.runner = new EmbeddingBatchRunner(provider, options);
  }

  async embedGraph(
    workspace: string,
    graphKey: string,
    selection: NodeSelection,
    options: EmbedGraphOptions = {},
  ): Promise<EmbeddingRunReport> {
    const report = emptyEmbeddingRunReport();
    const callsBefore = this.runner.calls;
    const source = this.store.forWorkspace(workspace);
    if (!(await source.getGraph(graphKey))) return report;
    const [configs, states] = await Promise.all([
      source.getNodeConfigs(),
      this.store.getEmbeddingStates(workspace, graphKey),
    ]);
    const configByType = new Map<string, NodeTypeConfig>(configs.map((config) => [config._key, config]));
    const stateByKey = new Map<string, StoredEmbeddingState>(states.map((state) => [state.nodeKey, state]));
    // The graph's order for `all`; the nodes are read a page at a time, never all at once (50,000 documents are a long read).
    const keys =
      selection === 'all'
        ? states.map((state) => state.nodeKey)
        : [...new Set(selection)].filter((key) => stateByKey.has(key));
    const model = this.provider.modelName;
    const progress = () =>
      options.onProgress?.({ ...report, upstreamCalls: this.runner.calls - callsBefore }, keys.length);

    const queued: Array<Promise<void>> = [];
    let batch: PendingText[] = [];
    /** Queues a batch; resolves once it has a slot, so that reading the nodes waits for the batches (and yields meanwhile). */
    const dispatch = (texts: PendingText[]) =>
      new Promise<void>((started) => {
        const run = this.options.limiter(async () => {
          started();
          // Stopped while waiting for a slot: what was not sent has no vector.
          if (options.signal?.aborted) report.failed += texts.length;
          else await this.embedBatch(workspace, graphKey, texts, report, options.signal);
        });
        queued.push(run.finally(progress));
      });

    try {
      for await (const node of this.nodesInPages(source, graphKey, keys, options.signal)) {
        const decision = planNodeEmbedding(
          node,
          configByType.get(node.type),
          stateByKey.get(node._key),
          model,
          options.force,
        );
        report.processed += 1;
        if (decision.action === 'skip') {
          if (decision.reason === 'empty') report.skippedEmpty += 1;
          else report.skippedUnchanged += 1;
        } else {
          batch.push(decision);
          if (batch.length >= this.options.batchSize) {
            const full = batch;
            batch = [];
            await dispatch(full);
          }
        }
        progress();
      }
      const last = batch;
      batch = [];
      if (last.length > 0 && !options.signal?.aborted) await dispatch(last);
      else report.failed += last.length;
    } finally {
      await Promise.all(queued);
    }
    report.upstreamCalls = this.runner.calls - callsBefore;
    return report;
  }

  /** The nodes of `keys` in their order, read READ_PAGE_NODES at a time (a node deleted meanwhile is skipped). */
  private async *nodesInPages(
    source: GraphDataSource,
    graphKey: string,
    keys: string[],
    signal: AbortSignal | undefined,
  ): AsyncGenerator<GraphNode> {
    for (let from = 0; from < keys.length && !signal?.aborted; from += READ_PAGE_NODES) {
      for (const node of await source.getNodesByKeys(graphKey, keys.slice(from, from + READ_PAGE_NODES))) {
        if (signal?.aborted) return;
        yield node;
      }
    }
  }

  private async embedBatch(
    workspace: string,
    graphKey: string,
    texts: PendingText[],
    report: EmbeddingRunReport,
    signal?: AbortSignal,
  ): Promise<void> {
    const started = performance.now();
    let entries: NodeEmbeddingWrite[] = [];
    let failed = 0;
    let aborted = false;
    try {
      const outcomes = await this.runner.embed(
        texts.map((item) => item.text),
        signal,
      );
      outcomes.forEach((outcome, index) => {
        if ('vector' in outcome && outcome.vector.length > 0) {
          entries.push({
            nodeKey: texts[index].nodeKey,
            vector: outcome.vector,
            model: this.provider.modelName,
            hash: texts[index].hash,
          });
        } else {
          failed += 1;
        }
      });
      if (entries.length > 0) await this.store.saveEmbeddings(workspace, graphKey, entries);
    } catch (error) {
      aborted = isAbortError(error);
      if (!aborted) {
        logger.warn('embedding_batch_failed', { workspace, graphKey, size: texts.length, error: describe(error) });
      }
      failed = texts.length;
      entries = [];
    }
    report.embedded += entries.length;
    report.failed += failed;
    logger.info('embedding_batch', {
      workspace,
      graphKey,
      model: this.provider.modelName,
      size: texts.length,
      embedded: entries.length,
      failed,
      ...(aborted ? { aborted: true } : {}),
      durationMs: Math.round(performance.now() - started),
    });
  }
}

function describe(error: unknown): string {
  return describeUpstreamError(error);
}

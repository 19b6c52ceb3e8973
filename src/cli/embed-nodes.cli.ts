import 'reflect-metadata';
import pLimit from 'p-limit';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { EMBEDDING_PROVIDER } from '../embeddings/embedding-provider.token';
import { EmbeddingRunReport, emptyEmbeddingRunReport } from '../embeddings/embedding-run.report';
import { GraphNodeEmbedder } from '../embeddings/graph-node.embedder';
import { UpstreamCallPacer } from '../embeddings/upstream-call.pacer';
import { GraphStore } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { CliArguments } from './cli-arguments';
import { CliIo, openCliContext, runCli } from './cli-context';
import { ProgressReporter } from './progress.reporter';

const USAGE = 'Usage: npm run ai:embed-nodes -- [--force] [--graph KEY] [--workspace NAME] [batch=N] [delay=MS]';
/** Defaults: 100 nodes per batch, 100 ms between upstream calls. */
const DEFAULT_BATCH = 100;
const DEFAULT_DELAY_MS = 100;

/**
 * `npm run ai:embed-nodes` (on whichever store STORE selects): gives
 * every node a current vector — only nodes whose vector is missing or outdated (another model,
 * another text), or all of them with --force — in batches of `batch` texts, `delay` ms between
 * upstream calls, one batch at a time. Prints progress, then processed / embedded / skipped /
 * failed. Exit code 0 when nothing failed, 1 when some node failed, 2 on a usage error.
 */
export async function embedNodes(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let args: CliArguments;
  let batchSize: number;
  let delayMs: number;
  try {
    args = CliArguments.parse(argv, {
      flags: ['force'],
      options: ['graph', 'workspace'],
      settings: ['batch', 'delay'],
    });
    batchSize = args.integerSetting('batch', DEFAULT_BATCH);
    delayMs = args.integerSetting('delay', DEFAULT_DELAY_MS);
    if (batchSize < 1) throw new Error('batch= must be at least 1');
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }

  const context = await openCliContext(env);
  try {
    const provider = context.app.get<EmbeddingProvider | null>(EMBEDDING_PROVIDER, { strict: false });
    if (!provider) {
      io.stderr.write('Embeddings are off (EMBEDDING_PROVIDER=none): nothing to do.\n');
      return 0;
    }
    const store = context.app.get<GraphStore>(GRAPH_STORE, { strict: false });
    const graphFilter = args.option('graph');
    const workspaceFilter = args.option('workspace');
    const graphs = (await store.listGraphs()).filter(
      (graph) =>
        (!graphFilter || graph.graphKey === graphFilter) && (!workspaceFilter || graph.workspace === workspaceFilter),
    );
    if (graphFilter && graphs.length === 0) {
      io.stderr.write(
        `No graph "${graphFilter}"${workspaceFilter ? ` in workspace "${workspaceFilter}"` : ''} in the ${store.kind} store.\n`,
      );
      return 1;
    }

    const pacer = new UpstreamCallPacer(delayMs);
    const embedder = new GraphNodeEmbedder(store, provider, {
      batchSize,
      limiter: pLimit(1),
      beforeCall: (signal) => pacer.wait(signal),
    });
    const force = args.flag('force');
    io.stdout.write(
      `Embedding ${force ? 'every node' : 'nodes with a missing or outdated vector'} of ${graphs.length} graph(s) in the ${store.kind} store ` +
        `with ${provider.modelName} (batch=${batchSize}, delay=${delayMs} ms)\n`,
    );

    const total = emptyEmbeddingRunReport();
    const progress = new ProgressReporter(io);
    const stop = new AbortController();
    const onSignal = () => stop.abort(new Error('interrupted'));
    process.once('SIGINT', onSignal);
    try {
      for (const { workspace, graphKey } of graphs) {
        if (stop.signal.aborted) break;
        const label = `${workspace}/${graphKey}`;
        const report = await embedder.embedGraph(workspace, graphKey, 'all', {
          force,
          signal: stop.signal,
          onProgress: (current, nodes) => progress.update(label, current.processed, nodes, describeCounts(current)),
        });
        progress.finish();
        io.stdout.write(`${label}: ${describeCounts(report)}\n`);
        add(total, report);
      }
    } finally {
      process.removeListener('SIGINT', onSignal);
    }

    io.stdout.write(
      [
        '',
        `Report (${provider.modelName})`,
        `  processed  ${total.processed}`,
        `  embedded   ${total.embedded}`,
        `  skipped    ${total.skippedEmpty + total.skippedUnchanged} (empty text ${total.skippedEmpty}, unchanged ${total.skippedUnchanged})`,
        `  failed     ${total.failed}`,
        `  upstream calls ${total.upstreamCalls}`,
        '',
      ].join('\n'),
    );
    if (stop.signal.aborted) io.stderr.write('Interrupted: the report covers what was done.\n');
    return total.failed > 0 || stop.signal.aborted ? 1 : 0;
  } finally {
    await context.close();
  }
}

function describeCounts(report: Readonly<EmbeddingRunReport>): string {
  return `embedded ${report.embedded}, skipped ${report.skippedEmpty + report.skippedUnchanged}, failed ${report.failed}`;
}

function add(total: EmbeddingRunReport, report: EmbeddingRunReport): void {
  total.processed += report.processed;
  total.embedded += report.embedded;
  total.skippedEmpty += report.skippedEmpty;
  total.skippedUnchanged += report.skippedUnchanged;
  total.failed += report.failed;
  total.upstreamCalls += report.upstreamCalls;
}

if (require.main === module) runCli(embedNodes);

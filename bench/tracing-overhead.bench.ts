import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { numberArgument } from './bench-arguments';
import { distribution, Distribution } from './bench-statistics';
import { formatTable } from './bench-table';

/**
 * What OpenTelemetry tracing costs a chat: the same chat with a tool round (two upstream calls, one read tool, three
 * commits: nine spans) over REST, one at a time, on two instances of the real app in child processes, one with
 * tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset) and one with it on (exporting over OTLP/HTTP to a collector in this process that reads and
 * counts every span). The time is the whole HTTP request as the client sees it, so the difference is what tracing
 * adds to a chat, export included (batched, off the request path).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/tracing-overhead.bench.js [--iterations 200] [--warmup 50]
 */

const GRAPH = 'nba-workflow';

export interface TracingOverheadResult {
  iterations: number;
  /** ms per chat, tracing off. */
  off: Distribution;
  /** ms per chat, tracing on. */
  on: Distribution;
  /** Spans the collector received during the traced run (warm-up included). */
  spansExported: number;
}

export async function runTracingOverheadBench(
  options: { iterations?: number; warmup?: number } = {},
): Promise<TracingOverheadResult> {
  const iterations = options.iterations ?? 200;
  const warmup = options.warmup ?? 50;
  const llm = await ScriptedLlmServer.start();
  let spansExported = 0;
  const collector: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }>;
      };
      for (const resource of body.resourceSpans)
        for (const scope of resource.scopeSpans) spansExported += scope.spans.length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const apps = await Promise.all([startApp(llm, {}), startApp(llm, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })]);
  const samples: [number[], number[]] = [[], []];
  try {
    // Alternated, request by request: both see the same load on a shared machine.
    for (let index = 0; index < warmup + iterations; index += 1) {
      for (const [mode, app] of apps.entries()) {
        const elapsed = await timedChat(llm, app.instance.url);
        if (index >= warmup) samples[mode].push(elapsed);
      }
    }
    return { iterations, off: distribution(samples[0]), on: distribution(samples[1]), spansExported };
  } finally {
    for (const app of apps) {
      await app.instance.close(30_000);
      rmSync(app.dataDir, { recursive: true, force: true });
    }
    await new Promise<void>((resolve) => collector.close(() => resolve()));
    await llm.close();
  }
}

async function startApp(
  llm: ScriptedLlmServer,
  tracing: Record<string, string>,
): Promise<{ instance: TestAppProcess; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-tracing-'));
  const instance = await TestAppProcess.start(
    {
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
      ...tracing,
    },
    { timeoutMs: 60_000 },
  );
  return { instance, dataDir };
}

/** One chat with a tool round, on a new thread: ms from the request sent to the answer read. */
async function timedChat(llm: ScriptedLlmServer, url: string): Promise<number> {
  llm.reset();
  llm.enqueue(
    {
      toolCalls: [{ id: 'call_detail', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
      usage: { prompt: 1200, completion: 12, cached: 1000 },
    },
    {
      text: 'fetch-api calls the API and logs its errors.',
      chunkSize: 16,
      usage: { prompt: 1400, completion: 9, cached: 1200 },
    },
  );
  const started = performance.now();
  const response = await fetch(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ graphKey: GRAPH, message: 'What does fetch-api do?' }),
  });
  await response.text();
  if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
  return performance.now() - started;
}

export function tracingOverheadTable(result: TracingOverheadResult): string[] {
  const row = (label: string, value: Distribution) => [
    label,
    value.p50.toFixed(2),
    value.p95.toFixed(2),
    value.p99.toFixed(2),
  ];
  return [
    `Tracing overhead: a chat with a tool round over REST, ${result.iterations} iterations, ms`,
    ...formatTable(['tracing', 'p50', 'p95', 'p99'], [row('off', result.off), row('on (OTLP/HTTP)', result.on)]),
    `spans exported: ${result.spansExported}`,
  ];
}

if (require.main === module) {
  runTracingOverheadBench({ iterations: numberArgument('iterations'), warmup: numberArgument('warmup') })
    .then((result) => {
      for (const line of tracingOverheadTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

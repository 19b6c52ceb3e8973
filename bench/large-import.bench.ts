import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GraphDocument } from '../src/graph/graph.types';
import { configureLogging } from '../src/observability/logger';
import { TestAppProcess, TestAppProcessStats } from '../test/support/test-app.process';
import { numberArgument } from './bench-arguments';
import { distribution, Distribution } from './bench-statistics';
import { peakRss } from './process-peak-rss';

/**
 * A large graph import on a running service: what a 50,000-node import of ~3.5 MB costs the event loop when
 * refused and when accepted, what the first context request on that graph costs, and the RSS left after about
 * 110,000 imported nodes. The service runs alone in a child process (TestAppProcess) with its
 * defaults (local embeddings computed in the background after each import); this process sends:
 *   1. a refused import (every edge points to a missing node): time to the 400;
 *   2. the same graph, valid: time to accept (200);
 *   3. the first POST /api/rag/context on it (its search indexes are built then);
 *   4. two more imports (another 50,000 nodes, then 10,000), each followed by its first context,
 *      for about 110,000 imported nodes in all.
 * During each step it calls GET /health one request after the other (a client of another graph
 * waiting on the service); reported: the service's own event-loop delay (max, p99), the slowest
 * /health answer, the step's time; RSS before, the peak (VmHWM), and RSS and heap after a full GC
 * once the background embedding is done.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/large-import.bench.js [--nodes 50000]
 */

const WORDS = [
  'invoice',
  'customer',
  'refund',
  'shipment',
  'ledger',
  'payroll',
  'webhook',
  'retry',
  'archive',
  'report',
  'quota',
  'audit',
];

export interface ImportStep {
  name: string;
  status: number;
  /** Request sent → answer received, ms. */
  durationMs: number;
  eventLoopDelayMaxMs: number;
  eventLoopDelayP99Ms: number;
  /** GET /health answers during the step (one after the other). */
  health: Distribution;
}

export interface LargeImportResult {
  nodes: number;
  bodyBytes: number;
  steps: ImportStep[];
  memory: {
    rssBeforeBytes: number;
    heapBeforeBytes: number;
    peakRssBytes: number;
    /** After every import, its first context and the background embeddings, after a full GC. */
    rssAfterBytes: number;
    heapAfterBytes: number;
    /** Nodes imported over the whole section. */
    importedNodes: number;
  };
}

/**
 * `count` nodes whose keys carry the words searched (what BM25 indexes first) and one edge per twenty
 * nodes: about 70 bytes of JSON per node, as in the probe (50,000 nodes ≈ 3.6 MB, under the 5 MB limit).
 */
function graphOf(graphKey: string, count: number, danglingEdges = false): GraphDocument {
  const nodes = Array.from({ length: count }, (_, index) => ({
    _key: `${WORDS[index % WORDS.length]}-${index}`,
    type: 'code',
    sheet: '0',
    posX: index % 1000,
    posY: Math.floor(index / 1000),
  }));
  const edges = Array.from({ length: Math.floor(count / 20) }, (_, index) => ({
    _key: `e${index}`,
    sheet: '0',
    source: nodes[index * 20]._key,
    sourceHandle: 'R-0',
    target: danglingEdges ? `missing-${index}` : nodes[index * 20 + 1]._key,
    targetHandle: 'L-0',
  }));
  return {
    graph: { _key: graphKey, workspace: 'default', name: graphKey, sheetsList: { '0': 'main' } },
    nodes,
    edges,
    nodeConfigs: [],
  } as unknown as GraphDocument;
}

function send(url: string, method: string, route: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      new URL(route, url),
      {
        method,
        headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {},
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

/** Runs `work` while calling /health one request after the other; the step's figures. */
async function step(service: TestAppProcess, name: string, work: () => Promise<number>): Promise<ImportStep> {
  await service.stats(); // starts a new event-loop delay window
  let done = false;
  const health: number[] = [];
  const probing = (async () => {
    while (!done) {
      const sent = performance.now();
      await send(service.url, 'GET', '/health');
      health.push(performance.now() - sent);
    }
  })();
  const started = performance.now();
  const status = await work();
  const durationMs = performance.now() - started;
  done = true;
  await probing;
  const stats = await service.stats();
  return {
    name,
    status,
    durationMs,
    eventLoopDelayMaxMs: stats.eventLoopDelayMaxMs,
    eventLoopDelayP99Ms: stats.eventLoopDelayP99Ms,
    health: distribution(health),
  };
}

/** Waits until the service is idle (its background embeddings done): under 5 % of a core over a second. */
async function untilIdle(service: TestAppProcess, timeoutMs = 120_000): Promise<TestAppProcessStats> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    await sleep(1_000);
    const stats = await service.stats();
    if (stats.cpuMs < 50 || performance.now() > deadline) return stats;
  }
}

export async function runLargeImportBench(options: { nodes?: number } = {}): Promise<LargeImportResult> {
  configureLogging({ level: 'error' });
  const nodes = options.nodes ?? 50_000;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'large-import-bench-'));
  const service = await TestAppProcess.start(
    { DATA_DIR: dataDir, LOG_LEVEL: 'error', EMBEDDING_PROVIDER: 'local' },
    { execArgv: ['--expose-gc'], timeoutMs: 60_000 },
  );
  try {
    // Warm-up: routes, JIT, tokenizer, a first retrieval.
    for (let index = 0; index < 20; index += 1)
      await send(
        service.url,
        'POST',
        '/api/rag/context',
        JSON.stringify({ graphKey: 'nba-workflow', query: 'fetch api' }),
      );
    const before = await untilIdle(service);

    const body = JSON.stringify(graphOf('large-a', nodes));
    const steps: ImportStep[] = [];
    const context = (graphKey: string) =>
      send(service.url, 'POST', '/api/rag/context', JSON.stringify({ graphKey, query: 'refund ledger' }));
    const refused = JSON.stringify(graphOf('large-a', nodes, true));
    steps.push(
      await step(service, `refused import, ${nodes.toLocaleString('en-US')} nodes`, () =>
        send(service.url, 'PUT', '/api/graphs/large-a', refused),
      ),
    );
    steps.push(
      await step(service, `accepted import, ${nodes.toLocaleString('en-US')} nodes`, () =>
        send(service.url, 'PUT', '/api/graphs/large-a', body),
      ),
    );
    steps.push(await step(service, 'first context on it', () => context('large-a')));
    const second = JSON.stringify(graphOf('large-b', nodes));
    steps.push(
      await step(service, `second import, ${nodes.toLocaleString('en-US')} nodes`, () =>
        send(service.url, 'PUT', '/api/graphs/large-b', second),
      ),
    );
    steps.push(await step(service, 'first context on it', () => context('large-b')));
    const third = JSON.stringify(graphOf('large-c', Math.round(nodes / 5)));
    steps.push(
      await step(service, `third import, ${Math.round(nodes / 5).toLocaleString('en-US')} nodes`, () =>
        send(service.url, 'PUT', '/api/graphs/large-c', third),
      ),
    );
    steps.push(await step(service, 'first context on it', () => context('large-c')));
    const peak = peakRss(service.pid);
    const after = await untilIdle(service);
    return {
      nodes,
      bodyBytes: Buffer.byteLength(body),
      steps,
      memory: {
        rssBeforeBytes: before.rss,
        heapBeforeBytes: before.heapUsed,
        peakRssBytes: peak,
        rssAfterBytes: after.rss,
        heapAfterBytes: after.heapUsed,
        importedNodes: nodes * 2 + Math.round(nodes / 5),
      },
    };
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function largeImportTable(result: LargeImportResult): string[] {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  return [
    `graph of ${result.nodes.toLocaleString('en-US')} nodes, ${(result.bodyBytes / 1024 / 1024).toFixed(1)} MB of JSON`,
    ...result.steps.map(
      (item) =>
        `${item.name}: ${item.status} in ${ms(item.durationMs)}; service event-loop delay max ${ms(item.eventLoopDelayMaxMs)} (p99 ${ms(item.eventLoopDelayP99Ms)}); ` +
        `/health ×${item.health.count}, slowest ${ms(item.health.max)}`,
    ),
    `service memory: RSS ${mb(result.memory.rssBeforeBytes)} before (heap ${mb(result.memory.heapBeforeBytes)}), peak ${mb(result.memory.peakRssBytes)}, ` +
      `${mb(result.memory.rssAfterBytes)} after ${result.memory.importedNodes.toLocaleString('en-US')} imported nodes and a full GC (heap ${mb(result.memory.heapAfterBytes)})`,
  ];
}

if (require.main === module) {
  runLargeImportBench({ nodes: numberArgument('nodes') })
    .then((result) => {
      for (const line of largeImportTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

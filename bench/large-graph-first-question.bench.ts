import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GraphDocument } from '../src/graph/graph.types';
import { configureLogging } from '../src/observability/logger';
import { TestAppProcess, TestAppProcessStats } from '../test/support/test-app.process';
import { argumentValue, numberArgument } from './bench-arguments';
import { distribution, Distribution } from './bench-statistics';
import { startHealthProbe } from './health-probe';
import { poolQuestions } from './pool-questions';
import { monotonicMs } from './monotonic-clock';
import { mainThreadCpuMs, processCpuMs } from './process-cpu';
import { buildPoolGraph } from './workflow-pool.graph-builder';

/**
 * The first question on a large graph (issue: "a fast first question"), on a running service: the
 * service runs alone in a child process (TestAppProcess, the default local embedding), this process
 * is its client. Steps:
 *   1. import a graph of the shared workflow pool (20,000 nodes, one workflow per sheet) with PUT;
 *   2. at once, the first POST /api/rag/context on it (its search index is built in a worker
 *      thread while the import is staged; the question waits for it at most RAG_INDEX_WAIT_MS);
 *   3. until the service is idle again (the index built, every node embedded in the background),
 *      GET /health one request after the other: the slowest answer is the build's longest stall;
 *   4. questions (distinct, cache misses) over HTTP: p50 / p95, half of them naming their workflow;
 *   5. memory after a full GC, before the import and after: per 1,000 nodes;
 *   6. a restart on the same file: the new instance loads the graph's index snapshot at start
 *      (GraphSearchPreparer); its first question, and /health meanwhile.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/large-graph-first-question.bench.js [--nodes 20000] [--questions 200] [--cpu-prof DIR]
 *
 * With --cpu-prof, each service instance (and each of its threads) writes a V8 CPU profile into DIR
 * (1 ms sampling) when it closes, and phases.json the phases' windows on the monotonic clock of the
 * profiles' timestamps (ms): what runs on the event loop in each phase.
 */

export interface Phase {
  /** GET /health answers during the phase, one after the other. */
  health: Distribution;
  /** The service's own event-loop delay over the phase (monitorEventLoopDelay, 10 ms resolution). */
  eventLoopDelayMaxMs: number;
  durationMs: number;
  /** CPU time of the service over the phase (10 ms ticks): every thread, and its main thread (the event loop) alone. */
  cpuMs: { all: number; mainThread: number };
}

export interface FirstQuestionResult {
  nodes: number;
  sheets: number;
  bodyBytes: number;
  import: Phase & { status: number };
  firstContext: { ms: number; status: number; complete: boolean; searchMode: string; nodes: number };
  /** From the import's answer until the service is idle (index built, nodes embedded). */
  build: Phase;
  /**
   * Cache misses after the build, over HTTP (request sent → answer read), and the service's CPU per
   * question (mean; main thread alone: what a question costs the event loop, whatever the machine's load).
   */
  questions: {
    all: Distribution;
    named: Distribution;
    unnamed: Distribution;
    incomplete: number;
    cpuMsPerQuestion: { all: number; mainThread: number };
  };
  memory: {
    rssBeforeBytes: number;
    heapBeforeBytes: number;
    rssAfterBytes: number;
    heapAfterBytes: number;
    /** ArrayBuffers and WebAssembly memory (the vector matrix), after. */
    externalAfterBytes: number;
    externalBeforeBytes: number;
  };
  restart: {
    startMs: number;
    /** The first question of the instance, on the demo graph (the token counter's thread starting). */
    demoFirstMs: number;
    firstContext: { ms: number; status: number; complete: boolean; searchMode: string };
    /** From start until idle (the snapshot loaded, the vectors indexed). */
    warmUp: Phase;
  };
  loadAverage: { start: number[]; end: number[] };
}

function send(url: string, method: string, route: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      new URL(route, url),
      {
        method,
        headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {},
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

interface ContextAnswer {
  ms: number;
  status: number;
  complete: boolean;
  searchMode: string;
  nodes: number;
}

async function context(url: string, graphKey: string, query: string): Promise<ContextAnswer> {
  const started = performance.now();
  const { status, text } = await send(url, 'POST', '/api/rag/context', JSON.stringify({ graphKey, query }));
  const ms = performance.now() - started;
  const body =
    status === 200
      ? (JSON.parse(text) as { context: { retrieval: Record<string, unknown>; relevantNodes: unknown[] } })
      : null;
  return {
    ms,
    status,
    complete: body !== null && body.context.retrieval.indexing !== true,
    searchMode: String(body?.context.retrieval.searchMode ?? 'none'),
    nodes: body?.context.relevantNodes.length ?? 0,
  };
}

/** Pause between two /health calls: a stall longer than this is seen; the calls themselves keep the service busy less. */
const HEALTH_GAP_MS = 10;
/**
 * The service's background work is over below this CPU per second in its threads other than the
 * main one (the index build, embedding and token count workers): the main thread also answers the
 * probe's /health calls, 100 per second or so.
 */
const IDLE_WORKER_CPU_MS_PER_SECOND = 100;

/**
 * Calls /health one request after the other (HEALTH_GAP_MS apart) from a process of its own while
 * `work` runs (this process's own stalls, sending a 20 MB body, are not the service's); the phase's figures.
 */
async function phase<T>(service: TestAppProcess, work: () => Promise<T>): Promise<{ result: T; phase: Phase }> {
  await service.stats(); // starts a new event-loop delay window
  const probe = await startHealthProbe(service.url, HEALTH_GAP_MS);
  const started = performance.now();
  const cpu = serviceCpu(service);
  const result = await work();
  const durationMs = performance.now() - started;
  const cpuMs = cpu();
  const health = await probe.stop();
  const stats = await service.stats();
  return {
    result,
    phase: { health: distribution(health), eventLoopDelayMaxMs: stats.eventLoopDelayMaxMs, durationMs, cpuMs },
  };
}

/** Starts counting the service's CPU time; the returned function reads what was used since. */
function serviceCpu(service: TestAppProcess): () => { all: number; mainThread: number } {
  const all = processCpuMs(service.pid);
  const mainThread = mainThreadCpuMs(service.pid);
  return () => ({ all: processCpuMs(service.pid) - all, mainThread: mainThreadCpuMs(service.pid) - mainThread });
}

/**
 * Waits until the service's background embedding queue is idle, then until its worker threads used
 * under IDLE_WORKER_CPU_MS_PER_SECOND over a second (what follows an embedding run: the vector index
 * brought up to date; a restart's index builds), read from /proc: not through stats(), whose forced
 * GC would be a stall of the service's own.
 */
async function untilIdle(service: TestAppProcess, timeoutMs = 600_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  await Promise.race([
    service.request({ embeddingIdle: true }, (reply) => (reply as { embeddingIdle?: boolean }).embeddingIdle),
    sleep(timeoutMs, undefined, { ref: false }),
  ]);
  const workersCpuMs = () => processCpuMs(service.pid) - mainThreadCpuMs(service.pid);
  let cpu = workersCpuMs();
  for (;;) {
    await sleep(1_000);
    const now = workersCpuMs();
    if (!(now - cpu >= IDLE_WORKER_CPU_MS_PER_SECOND) || performance.now() > deadline) return;
    cpu = now;
  }
}

function questionsOf(document: GraphDocument, count: number): Array<{ query: string; named: boolean }> {
  const sheets = document.graph.sheetsList ?? {};
  return poolQuestions(document, count, 42).map((query, index) => {
    if (index % 2 === 0) return { query, named: false };
    // Half of them name their workflow, as a user of a workspace of workflows does.
    const node = document.nodes[(index * 7919) % document.nodes.length];
    return { query: `[${sheets[node.sheet]}] ${query}`, named: true };
  });
}

export async function runLargeGraphFirstQuestionBench(
  options: { nodes?: number; questions?: number; cpuProfileDir?: string } = {},
): Promise<FirstQuestionResult> {
  configureLogging({ level: 'error' });
  const loadStart = (await import('node:os')).loadavg();
  const nodes = options.nodes ?? 20_000;
  const graphKey = `pool-${nodes}`;
  let importBody: string | null = null;
  // Only what the bench needs later is kept: a 20 MB string and a 20,000-node document in this process would make
  // its own garbage collections, during the questions, part of the latencies it measures.
  const { shape, asked } = (() => {
    const document = buildPoolGraph(nodes, graphKey, 'default');
    importBody = JSON.stringify(document);
    return {
      shape: { nodes: document.nodes.length, sheets: Object.keys(document.graph.sheetsList ?? {}).length },
      asked: questionsOf(document, options.questions ?? 200),
    };
  })();
  const bodyBytes = Buffer.byteLength(importBody as string);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'first-question-bench-'));
  const env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    EMBEDDING_PROVIDER: 'local',
    GRAPH_IMPORT_MAX_BYTES: String(Math.max(5 * 1024 * 1024, bodyBytes * 2)),
  };
  const profiling = options.cpuProfileDir
    ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir, '--cpu-prof-interval', '1000']
    : [];
  const start = () =>
    TestAppProcess.start(env, {
      execArgv: ['--expose-gc', ...profiling],
      setupModule: path.join(__dirname, `embedding-idle.child-setup${path.extname(__filename)}`),
      timeoutMs: 60_000,
    });
  let service = await start();
  try {
    // Warm-up: routes, JIT, the token counter's thread, a first retrieval.
    for (let index = 0; index < 20; index += 1) await context(service.url, 'nba-workflow', 'fetch api');
    await untilIdle(service);
    const before = await service.stats();

    const windows: Record<string, [number, number]> = {};
    const marked = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const started = monotonicMs();
      const result = await work();
      windows[name] = [started, monotonicMs()];
      return result;
    };
    const imported = await phase(service, () =>
      marked('import', () => send(service.url, 'PUT', `/api/graphs/${graphKey}`, importBody as string)),
    );
    importBody = null;
    let first: ContextAnswer | undefined;
    const build = await phase(service, () =>
      marked('build', async () => {
        first = await context(service.url, graphKey, 'which nodes send an email when a form is submitted?');
        await untilIdle(service);
      }),
    );

    global.gc?.();
    const answers: Array<ContextAnswer & { named: boolean }> = [];
    const questionsCpu = serviceCpu(service);
    await marked('questions', async () => {
      for (const { query, named } of asked) answers.push({ ...(await context(service.url, graphKey, query)), named });
    });
    const questionsCpuMs = questionsCpu();
    const after = await service.stats();
    await service.close();

    const restartStarted = performance.now();
    service = await start();
    const startMs = performance.now() - restartStarted;
    let restartFirst: ContextAnswer | undefined;
    let demoFirst: ContextAnswer | undefined;
    const warmUp = await phase(service, async () => {
      windows.warmUp = [monotonicMs(), Number.NaN];
      // A question on the small demo graph first: the token counter's thread loads its ranks (seconds), whatever the graph.
      demoFirst = await context(service.url, 'nba-workflow', 'fetch api');
      restartFirst = await context(service.url, graphKey, 'which nodes send an email when a form is submitted?');
      await untilIdle(service);
      windows.warmUp[1] = monotonicMs();
    });
    if (options.cpuProfileDir) writeFileSync(path.join(options.cpuProfileDir, 'phases.json'), JSON.stringify(windows));
    const firstAnswer = first as ContextAnswer;
    const restartAnswer = restartFirst as ContextAnswer;
    return {
      ...shape,
      bodyBytes,
      import: { ...imported.phase, status: imported.result.status },
      firstContext: firstAnswer,
      build: build.phase,
      questions: {
        all: distribution(answers.map((answer) => answer.ms)),
        named: distribution(answers.filter((answer) => answer.named).map((answer) => answer.ms)),
        unnamed: distribution(answers.filter((answer) => !answer.named).map((answer) => answer.ms)),
        incomplete: answers.filter((answer) => !answer.complete || answer.status !== 200).length,
        cpuMsPerQuestion: {
          all: questionsCpuMs.all / answers.length,
          mainThread: questionsCpuMs.mainThread / answers.length,
        },
      },
      memory: memoryOf(before, after),
      restart: {
        startMs,
        demoFirstMs: (demoFirst as ContextAnswer).ms,
        firstContext: restartAnswer,
        warmUp: warmUp.phase,
      },
      loadAverage: { start: loadStart, end: (await import('node:os')).loadavg() },
    };
  } finally {
    await service.close().catch(() => service.kill());
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function memoryOf(before: TestAppProcessStats, after: TestAppProcessStats): FirstQuestionResult['memory'] {
  return {
    rssBeforeBytes: before.rss,
    heapBeforeBytes: before.heapUsed,
    externalBeforeBytes: before.external,
    rssAfterBytes: after.rss,
    heapAfterBytes: after.heapUsed,
    externalAfterBytes: after.external,
  };
}

/** MB per 1,000 nodes of a before / after difference. */
export function perThousandNodes(result: FirstQuestionResult, before: number, after: number): number {
  return (after - before) / 1024 / 1024 / (result.nodes / 1000);
}

export function largeGraphFirstQuestionTable(result: FirstQuestionResult): string[] {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const health = (item: Phase) =>
    `/health ×${item.health.count}, slowest ${ms(item.health.max)} (p99 ${ms(item.health.p99)}); service event-loop delay max ${ms(item.eventLoopDelayMaxMs)}; ` +
    `service CPU ${ms(item.cpuMs.all)}, of which its main thread ${ms(item.cpuMs.mainThread)}`;
  const answer = (item: { ms: number; status: number; complete: boolean; searchMode: string }) =>
    `${item.status} in ${ms(item.ms)}, ${item.searchMode}${item.complete ? '' : ' (index still being built: answered from what was ready)'}`;
  const { memory, questions } = result;
  const q = (item: Distribution) => `p50 ${item.p50.toFixed(1)} / p95 ${item.p95.toFixed(1)} ms`;
  return [
    `graph of ${result.nodes.toLocaleString('en-US')} nodes on ${result.sheets} sheets, ${(result.bodyBytes / 1024 / 1024).toFixed(1)} MB of JSON`,
    `import: ${result.import.status} in ${ms(result.import.durationMs)}; ${health(result.import)}`,
    `first context request after the import: ${answer(result.firstContext)}, ${result.firstContext.nodes} nodes`,
    `until idle (index built, ${result.nodes.toLocaleString('en-US')} nodes embedded): ${ms(result.build.durationMs)}; ${health(result.build)}`,
    `${questions.all.count} context requests after (cache misses, HTTP): ${q(questions.all)}; naming their workflow ${q(questions.named)}, not ${q(questions.unnamed)}; incomplete ${questions.incomplete}; service CPU per question ${questions.cpuMsPerQuestion.all.toFixed(1)} ms, main thread ${questions.cpuMsPerQuestion.mainThread.toFixed(1)} ms`,
    `memory after a full GC: RSS ${mb(memory.rssBeforeBytes)} → ${mb(memory.rssAfterBytes)}, heap ${mb(memory.heapBeforeBytes)} → ${mb(memory.heapAfterBytes)}, ` +
      `external ${mb(memory.externalBeforeBytes)} → ${mb(memory.externalAfterBytes)}: ` +
      `${perThousandNodes(result, memory.rssBeforeBytes, memory.rssAfterBytes).toFixed(2)} MB of RSS per 1,000 nodes`,
    `restart on the same file: listening after ${ms(result.restart.startMs)}; a question on the demo graph ${ms(result.restart.demoFirstMs)}, ` +
      `then the first context on the large graph ${answer(result.restart.firstContext)}; ` +
      `until idle ${ms(result.restart.warmUp.durationMs)}, ${health(result.restart.warmUp)}`,
    `load average ${result.loadAverage.start.map((value) => value.toFixed(2)).join(' / ')} → ${result.loadAverage.end.map((value) => value.toFixed(2)).join(' / ')}`,
  ];
}

if (require.main === module) {
  runLargeGraphFirstQuestionBench({
    nodes: numberArgument('nodes'),
    questions: numberArgument('questions'),
    cpuProfileDir: argumentValue('cpu-prof'),
  })
    .then((result) => {
      for (const line of largeGraphFirstQuestionTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

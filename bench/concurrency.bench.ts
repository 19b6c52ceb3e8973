import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { configureLogging } from '../src/observability/logger';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess, TestAppProcessStats } from '../test/support/test-app.process';
import { argumentValue, numberArgument } from './bench-arguments';
import { distribution, Distribution } from './bench-statistics';
import { peakRss } from './process-peak-rss';

/**
 * Many simultaneous short conversations on one instance (DESIGN.md: 1,000 concurrent streaming
 * conversations without errors; < 50 KB per idle cached thread). The service runs alone in a child
 * process (TestAppProcess: its RSS, heap and event loop are its own); this process holds the
 * scripted LLM server and `conversations` socket.io-client sockets, which all send one `ai:chat`
 * (a new thread each, the same question, so retrieval is a cache hit after the warm-up) at the same
 * moment and receive a short streamed answer. Reported: errors (ai:error, wrong text, no answer),
 * time to the first token and to the terminal event from the emit, the service's event-loop delay
 * and CPU time during the burst, its RSS before and its peak (VmHWM), and the heap it retains per cached thread
 * once every socket has gone (after a full GC; THREAD_CACHE_SIZE = conversations, so every thread
 * stays cached; those threads are hot: the cache deflates a thread only after 30 s unused).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/concurrency.bench.js [--conversations 1000] [--cpu-prof DIR]
 */

const GRAPH = 'nba-workflow';
const QUESTION = 'What does the fetch-api node do with errors?';
const ANSWER =
  'The fetch-api node sends its errors to error-handler, which logs them and returns an empty list of players.';
const CHUNK_SIZE = 4;

export interface ConcurrencyResult {
  conversations: number;
  /** Conversations that did not end with the full answer (ai:error, wrong text, or no terminal event in time). */
  errors: number;
  errorSamples: string[];
  /** ai:chat emitted → first ai:token received, ms. */
  firstTokenMs: Distribution;
  /** The earliest first token of the burst, ms after its emit. */
  firstTokenMinMs: number;
  /** ai:chat emitted → ai:complete received, ms. */
  completionMs: Distribution;
  /** First emit → last terminal event, ms. */
  burstMs: number;
  connectMs: number;
  answerTokens: number;
  service: {
    rssBeforeBytes: number;
    peakRssBytes: number;
    eventLoopDelayP99Ms: number;
    eventLoopDelayMaxMs: number;
    /** Service CPU time (all threads) from the end of the warm-up to the last terminal event, per conversation. */
    cpuMsPerConversation: number;
    /** (heap + external after the burst − before it) / conversations, after a full GC, same sockets open, every thread cached. */
    retainedBytesPerThread: number;
    /** What closing the sockets gave back, per socket (a leak check: runs and sinks must not outlive them). */
    releasedBytesPerSocket: number;
    threadCacheSize: number;
  };
}

export interface ConcurrencyOptions {
  conversations?: number;
  /** Write a V8 CPU profile of the service process into this directory. */
  cpuProfileDir?: string;
  timeoutMs?: number;
}

/** Lets the service handle what is still in flight (late frames, disconnects) before measuring it. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 500));
}

async function connectAll(url: string, count: number): Promise<AiSocketClient[]> {
  const clients: AiSocketClient[] = [];
  // In batches: a thousand handshakes at once only queue up behind each other.
  while (clients.length < count) {
    clients.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(100, count - clients.length) }, () => AiSocketClient.connect(url)),
      )),
    );
  }
  return clients;
}

export async function runConcurrencyBench(options: ConcurrencyOptions = {}): Promise<ConcurrencyResult> {
  configureLogging({ level: 'error' });
  const conversations = options.conversations ?? 1_000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'concurrency-bench-'));
  const server = await ScriptedLlmServer.start();
  const turn = {
    text: ANSWER,
    chunkSize: CHUNK_SIZE,
    usage: { prompt: 1800, completion: Math.ceil(ANSWER.length / CHUNK_SIZE) },
  };
  const service = await TestAppProcess.start(
    {
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      THREAD_CACHE_SIZE: String(conversations),
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
    },
    {
      execArgv: [
        '--expose-gc',
        ...(options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : []),
      ],
    },
  );
  let clients: AiSocketClient[] = [];
  try {
    let started = performance.now();
    clients = await connectAll(service.url, conversations);
    const connectMs = performance.now() - started;

    // Warm-up: JIT, tokenizer, retrieval cache, SQLite statements (one client, one at a time).
    for (let index = 0; index < 20; index++) {
      server.enqueue(turn);
      const warm = await clients[0].chat({ _id: 1_000 + index, graphKey: GRAPH, message: QUESTION });
      if (!warm.complete) throw new Error(`warm-up failed: ${JSON.stringify(warm.error)}`);
    }
    for (const client of clients) client.received.length = 0;
    const before = await service.stats();

    for (let index = 0; index < conversations; index++) server.enqueue(turn);
    const firstToken: number[] = [];
    const completion: number[] = [];
    const errorSamples: string[] = [];
    started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        const emitted = performance.now();
        const firstTokenAt = client.firstToken(1, timeoutMs).then(
          () => performance.now(),
          () => Number.NaN,
        );
        try {
          const recording = await client.chat({ _id: 1, graphKey: GRAPH, message: QUESTION }, timeoutMs);
          if (recording.error || recording.complete?.fullText !== ANSWER) {
            errorSamples.push(recording.error ? `${recording.error.code}: ${recording.error.error}` : 'wrong text');
            return;
          }
          completion.push(performance.now() - emitted);
          firstToken.push((await firstTokenAt) - emitted);
        } catch (error) {
          errorSamples.push(String(error));
        }
      }),
    );
    const burstMs = performance.now() - started;
    const during = await service.stats();
    // Every run has ended (terminal events received); the sockets are still open, as before the burst.
    await settle();
    const after = await service.stats();
    for (const client of clients) client.close();
    clients = [];
    await settle();
    const disconnected = await service.stats();
    const retained = (stats: TestAppProcessStats) => stats.heapUsed + stats.external;
    return {
      conversations,
      errors: errorSamples.length,
      errorSamples: [...new Set(errorSamples)].slice(0, 5),
      firstTokenMs: distribution(firstToken),
      firstTokenMinMs: Math.min(...firstToken),
      completionMs: distribution(completion),
      burstMs,
      connectMs,
      answerTokens: turn.usage.completion,
      service: {
        rssBeforeBytes: before.rss,
        peakRssBytes: peakRss(service.pid),
        eventLoopDelayP99Ms: during.eventLoopDelayP99Ms,
        eventLoopDelayMaxMs: during.eventLoopDelayMaxMs,
        cpuMsPerConversation: during.cpuMs / conversations,
        retainedBytesPerThread: (retained(after) - retained(before)) / conversations,
        releasedBytesPerSocket: (retained(after) - retained(disconnected)) / conversations,
        threadCacheSize: conversations,
      },
    };
  } finally {
    for (const client of clients) client.close();
    await service.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function concurrencySummary(result: ConcurrencyResult): string[] {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  return [
    `${result.conversations} simultaneous conversations (${result.answerTokens}-token streamed answers), sockets connected in ${ms(result.connectMs)}`,
    `errors: ${result.errors}${result.errorSamples.length ? ` (${result.errorSamples.join('; ')})` : ''}`,
    `first token: first ${ms(result.firstTokenMinMs)}, p50 ${ms(result.firstTokenMs.p50)}, p99 ${ms(result.firstTokenMs.p99)}; completion: p50 ${ms(result.completionMs.p50)}, p99 ${ms(result.completionMs.p99)}, max ${ms(result.completionMs.max)}; whole burst ${ms(result.burstMs)}`,
    `service during the burst: event-loop delay p99 ${ms(result.service.eventLoopDelayP99Ms)}, max ${ms(result.service.eventLoopDelayMaxMs)}; CPU ${result.service.cpuMsPerConversation.toFixed(2)} ms per conversation`,
    `service RSS: ${mb(result.service.rssBeforeBytes)} before, peak ${mb(result.service.peakRssBytes)}; retained per cached thread: ${(result.service.retainedBytesPerThread / 1024).toFixed(1)} KB; released per closed socket: ${(result.service.releasedBytesPerSocket / 1024).toFixed(1)} KB`,
  ];
}

if (require.main === module) {
  runConcurrencyBench({ conversations: numberArgument('conversations'), cpuProfileDir: argumentValue('cpu-prof') })
    .then((result) => {
      for (const line of concurrencySummary(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

import { performance } from 'node:perf_hooks';
import { Principal } from '../src/auth/principal';
import { configureLogging } from '../src/observability/logger';
import { LlmCallOptions, LlmCompletion, LlmProvider } from '../src/providers/llm-provider';
import { LlmMessage, LlmToolDefinition } from '../src/providers/llm-message';
import { LlmStreamChunk } from '../src/providers/llm-stream-chunk';
import { ChatServiceHarness, RecordingSink } from '../test/support/chat-service.harness';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';

/**
 * Service overhead of one question (DESIGN.md budget: p99 < 10 ms with a warm retrieval cache):
 * from ChatService.chat() entry to
 *   - "stream()": the moment the loop hands the messages to the LLM provider (our code only), and
 *   - "upstream": the moment the scripted LLM server has received the whole upstream request
 *     (our code + the real openai SDK + a local HTTP round trip),
 * plus the CPU time this process spent until stream() (a figure that a busy machine distorts less),
 * on the real SQLite store with the demo graph, one request at a time. The retrieval cache is warm
 * (the same question every time, after a warm-up). Two cases: the first message of a new thread
 * (thread creation, system prompt) and a follow-up on a thread that already holds `--history`
 * exchanges.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/agent-overhead.bench.js [--iterations 300] [--history 5]
 */

const GRAPH = 'nba-workflow';
const QUESTION = 'What does the fetch-api node do with errors?';
const principal: Principal = { userId: 'bench', workspace: 'default', role: 'editor' };

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const fixed = (value: number) => value.toFixed(2).padStart(7);
  return `p50 ${fixed(percentile(sorted, 50))} ms   p99 ${fixed(percentile(sorted, 99))} ms   max ${fixed(sorted[sorted.length - 1])} ms`;
}

/** Notes when the loop calls stream(); everything else passes through. */
class TimedProvider implements LlmProvider {
  streamCalledAt = 0;
  streamCalledCpu: NodeJS.CpuUsage = { user: 0, system: 0 };

  constructor(private readonly inner: LlmProvider) {}

  get providerName(): string {
    return this.inner.providerName;
  }

  get model(): string {
    return this.inner.model;
  }

  get offline(): boolean {
    return this.inner.offline;
  }

  complete(messages: LlmMessage[], tools?: LlmToolDefinition[], options?: LlmCallOptions): Promise<LlmCompletion> {
    return this.inner.complete(messages, tools, options);
  }

  stream(messages: LlmMessage[], tools?: LlmToolDefinition[], options?: LlmCallOptions): AsyncIterable<LlmStreamChunk> {
    this.streamCalledAt = performance.now();
    this.streamCalledCpu = process.cpuUsage();
    return this.inner.stream(messages, tools, options);
  }
}

async function main(): Promise<void> {
  configureLogging({ level: 'error' });
  const iterations = argument('iterations', 300);
  const historyTurns = argument('history', 5);
  const warmup = 50;

  const server = await ScriptedLlmServer.start();
  let upstreamAt = 0;
  const answer = () => (request: unknown) => {
    void request;
    upstreamAt = performance.now();
    return { text: 'It logs them through error-handler.', chunkSize: 64, usage: { prompt: 1800, completion: 9, cached: 1500 } };
  };
  let timed: TimedProvider | undefined;
  const harness = await ChatServiceHarness.create({
    env: server.providerEnv('openai'),
    wrapProvider: (inner) => (timed = new TimedProvider(inner)),
  });
  const provider = timed as TimedProvider;

  const measure = async (threadId?: string): Promise<{ toStream: number; cpuToStream: number; toUpstream: number; threadId: string }> => {
    server.enqueue(answer());
    const startedCpu = process.cpuUsage();
    const started = performance.now();
    const result = await harness.service.chat(
      principal,
      { graphKey: GRAPH, message: QUESTION, ...(threadId ? { threadId } : {}) },
      new RecordingSink(),
      new AbortController().signal,
    );
    const cpuToStream = (provider.streamCalledCpu.user - startedCpu.user + provider.streamCalledCpu.system - startedCpu.system) / 1000;
    return { toStream: provider.streamCalledAt - started, cpuToStream, toUpstream: upstreamAt - started, threadId: result.threadId };
  };

  const rows: Array<[string, number[], number[], number[]]> = [];

  // First message of a new thread.
  for (let index = 0; index < warmup; index++) await measure();
  const firstStream: number[] = [];
  const firstCpu: number[] = [];
  const firstUpstream: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const sample = await measure();
    firstStream.push(sample.toStream);
    firstCpu.push(sample.cpuToStream);
    firstUpstream.push(sample.toUpstream);
  }
  rows.push(['new thread, first message', firstStream, firstCpu, firstUpstream]);

  // Follow-ups on threads that already hold `historyTurns` exchanges.
  const threads: string[] = [];
  for (let thread = 0; thread < 20; thread++) {
    let threadId = (await measure()).threadId;
    for (let turn = 1; turn < historyTurns; turn++) threadId = (await measure(threadId)).threadId;
    threads.push(threadId);
  }
  const followStream: number[] = [];
  const followCpu: number[] = [];
  const followUpstream: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const sample = await measure(threads[index % threads.length]);
    followStream.push(sample.toStream);
    followCpu.push(sample.cpuToStream);
    followUpstream.push(sample.toUpstream);
  }
  rows.push([`follow-up (${historyTurns}+ exchanges of history)`, followStream, followCpu, followUpstream]);

  console.log(`agent overhead, ${iterations} requests per case, warm retrieval cache, SQLite store, demo graph`);
  for (const [label, toStream, cpuToStream, toUpstream] of rows) {
    console.log(`\n${label}`);
    console.log(`  chat() → provider.stream()          ${summary(toStream)}`);
    console.log(`  same, CPU time of this process      ${summary(cpuToStream)}`);
    console.log(`  chat() → upstream request received  ${summary(toUpstream)}`);
  }
  console.log(`\nretriever cache entries: ${harness.retriever.cacheSize}; upstream requests: ${server.requests.length}`);

  await harness.close();
  await server.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

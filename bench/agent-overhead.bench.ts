import OpenAI from 'openai';
import { performance } from 'node:perf_hooks';
import { Principal } from '../src/auth/principal';
import { configureLogging } from '../src/observability/logger';
import { LlmCallOptions, LlmCompletion, LlmProvider } from '../src/providers/llm-provider';
import { LlmMessage, LlmToolDefinition } from '../src/providers/llm-message';
import { LlmStreamChunk } from '../src/providers/llm-stream-chunk';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { ChatServiceHarness, RecordingSink } from '../test/support/chat-service.harness';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { startTestApp } from '../test/support/test-app';
import { numberArgument } from './bench-arguments';
import { cpuMsBetween, distribution, Distribution } from './bench-statistics';
import { formatTable } from './bench-table';
import { ReceiptTimingIoAdapter } from './receipt-timing.io-adapter';

/**
 * Service overhead of one question (DESIGN.md budget: p99 < 10 ms with a warm retrieval cache),
 * one request at a time, on the real SQLite store with the demo graph, the same question every
 * time (so the retrieval cache is warm after the warm-up). Two cases: the first message of a new
 * thread (thread creation, system prompt) and a follow-up on a thread that already holds
 * `--history` exchanges. Three measurements, in this order:
 *
 * 1. `socket`: through the real app (socket.io-client → gateway → ChatService → OpenAI adapter →
 *    scripted server), from the moment Socket.IO has decoded the `ai:chat` event on the server
 *    (ReceiptTimingIoAdapter) to the moment the scripted server has received the whole upstream
 *    request; plus this process's CPU time over the same window (a busy machine distorts it less).
 * 2. `sdk`: the bare openai SDK sending the very request bodies the service sent in (1), from
 *    `create()` to the same moment on the scripted server: the floor no service can go under.
 * 3. `chatService`: ChatService.chat() called directly (ChatServiceHarness), to split our code
 *    (chat() → provider.stream()) from the SDK and HTTP (→ upstream received).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/agent-overhead.bench.js [--iterations 300] [--history 5] [--socket-only]
 */

const GRAPH = 'nba-workflow';
const QUESTION = 'What does the fetch-api node do with errors?';
const ANSWER: ScriptedTurn = { text: 'It logs them through error-handler.', chunkSize: 64, usage: { prompt: 1800, completion: 9, cached: 1500 } };
const principal: Principal = { userId: 'bench', workspace: 'default', role: 'editor' };

export interface OverheadCase {
  label: string;
  /** Each measure's distribution over the iterations, ms. */
  measures: Record<string, Distribution>;
}

export interface AgentOverheadResult {
  iterations: number;
  historyTurns: number;
  /** socket event received by the gateway → upstream request received: `gatewayToUpstream`, `cpu`. */
  socket: OverheadCase[];
  /** bare SDK create() → upstream request received (`sdkToUpstream`), same bodies as `socket`. */
  sdk: OverheadCase[];
  /** ChatService.chat() → provider.stream() (`chatToStream`, `cpuToStream`) and → upstream received (`chatToUpstream`). */
  chatService: OverheadCase[];
}

export interface AgentOverheadOptions {
  iterations?: number;
  history?: number;
  warmup?: number;
  /** Skip the ChatService-direct breakdown (3). */
  socketOnly?: boolean;
}

type Ask = (threadId?: string) => Promise<{ threadId: string; sample: Record<string, number> }>;

/** A new thread's first message, then follow-ups on 20 threads that hold `history` exchanges. */
async function measureCases(ask: Ask, options: Required<Pick<AgentOverheadOptions, 'iterations' | 'history' | 'warmup'>>): Promise<OverheadCase[]> {
  const collect = async (label: string, threadFor: (index: number) => string | undefined): Promise<OverheadCase> => {
    const samples: Record<string, number[]> = {};
    for (let index = 0; index < options.iterations; index++) {
      const { sample } = await ask(threadFor(index));
      for (const [name, value] of Object.entries(sample)) (samples[name] ??= []).push(value);
    }
    return { label, measures: Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, distribution(values)])) };
  };
  for (let index = 0; index < options.warmup; index++) await ask();
  const first = await collect('new thread, first message', () => undefined);
  const threads: string[] = [];
  for (let thread = 0; thread < 20; thread++) {
    let threadId = (await ask()).threadId;
    for (let turn = 1; turn < options.history; turn++) threadId = (await ask(threadId)).threadId;
    threads.push(threadId);
  }
  const followUp = await collect(`follow-up (${options.history}+ exchanges of history)`, (index) => threads[index % threads.length]);
  return [first, followUp];
}

/** The scripted answer, noting when the scripted server received the request (time and this process's CPU). */
class UpstreamClock {
  at = 0;
  cpu: NodeJS.CpuUsage = { user: 0, system: 0 };

  /** Queues the next answer; forgets the requests recorded so far (nothing is pending: one request at a time). */
  enqueue(server: ScriptedLlmServer): void {
    server.reset();
    server.enqueue(() => {
      this.at = performance.now();
      this.cpu = process.cpuUsage();
      return ANSWER;
    });
  }
}

async function measureSocket(server: ScriptedLlmServer, options: Required<Pick<AgentOverheadOptions, 'iterations' | 'history' | 'warmup'>>) {
  const upstream = new UpstreamClock();
  let receivedAt = 0;
  let receivedCpu: NodeJS.CpuUsage = { user: 0, system: 0 };
  const app = await startTestApp(
    { ...server.providerEnv('openai'), EMBEDDING_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' },
    {
      beforeListen: (nest) =>
        nest.useWebSocketAdapter(
          new ReceiptTimingIoAdapter(nest, (event) => {
            if (event !== 'ai:chat') return;
            receivedAt = performance.now();
            receivedCpu = process.cpuUsage();
          }),
        ),
    },
  );
  const client = await AiSocketClient.connect(app.url);
  let requestId = 0;
  // The last body sent for a first message and for a follow-up.
  const bodies: Record<'first' | 'followUp', RecordedRequest['body']> = { first: undefined, followUp: undefined };
  try {
    const ask: Ask = async (threadId) => {
      upstream.enqueue(server);
      const recording = await client.chat({ _id: ++requestId, graphKey: GRAPH, message: QUESTION, ...(threadId ? { threadId } : {}) });
      if (!recording.complete) throw new Error(`ai:chat failed: ${JSON.stringify(recording.error)}`);
      client.received.length = 0;
      bodies[threadId ? 'followUp' : 'first'] = server.lastRequest?.body;
      return {
        threadId: recording.complete.threadId,
        sample: { gatewayToUpstream: upstream.at - receivedAt, cpu: cpuMsBetween(receivedCpu, upstream.cpu) },
      };
    };
    const cases = await measureCases(ask, options);
    return { cases, bodies: [bodies.first, bodies.followUp] };
  } finally {
    client.close();
    await app.close();
  }
}

async function measureSdk(server: ScriptedLlmServer, labels: string[], bodies: RecordedRequest['body'][], iterations: number): Promise<OverheadCase[]> {
  const upstream = new UpstreamClock();
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.openAiBaseUrl, maxRetries: 0 });
  const cases: OverheadCase[] = [];
  for (const [index, body] of bodies.entries()) {
    const samples: number[] = [];
    for (let run = -20; run < iterations; run++) {
      upstream.enqueue(server);
      const started = performance.now();
      const stream = await client.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
      const elapsed = upstream.at - started;
      for await (const chunk of stream) void chunk;
      if (run >= 0) samples.push(elapsed);
    }
    cases.push({ label: labels[index], measures: { sdkToUpstream: distribution(samples) } });
  }
  return cases;
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

async function measureChatService(server: ScriptedLlmServer, options: Required<Pick<AgentOverheadOptions, 'iterations' | 'history' | 'warmup'>>): Promise<OverheadCase[]> {
  const upstream = new UpstreamClock();
  let timed: TimedProvider | undefined;
  const harness = await ChatServiceHarness.create({
    env: server.providerEnv('openai'),
    wrapProvider: (inner) => (timed = new TimedProvider(inner)),
  });
  const provider = timed as TimedProvider;
  try {
    return await measureCases(async (threadId) => {
      upstream.enqueue(server);
      const startedCpu = process.cpuUsage();
      const started = performance.now();
      const result = await harness.service.chat(
        principal,
        { graphKey: GRAPH, message: QUESTION, ...(threadId ? { threadId } : {}) },
        new RecordingSink(),
        new AbortController().signal,
      );
      return {
        threadId: result.threadId,
        sample: {
          chatToStream: provider.streamCalledAt - started,
          cpuToStream: cpuMsBetween(startedCpu, provider.streamCalledCpu),
          chatToUpstream: upstream.at - started,
        },
      };
    }, options);
  } finally {
    await harness.close();
  }
}

export async function runAgentOverheadBench(options: AgentOverheadOptions = {}): Promise<AgentOverheadResult> {
  configureLogging({ level: 'error' });
  const settings = { iterations: options.iterations ?? 300, history: options.history ?? 5, warmup: options.warmup ?? 50 };
  const server = await ScriptedLlmServer.start();
  try {
    const socket = await measureSocket(server, settings);
    const sdk = await measureSdk(
      server,
      socket.cases.map((entry) => entry.label),
      socket.bodies,
      settings.iterations,
    );
    const chatService = options.socketOnly ? [] : await measureChatService(server, settings);
    return { iterations: settings.iterations, historyTurns: settings.history, socket: socket.cases, sdk, chatService };
  } finally {
    await server.close();
  }
}

const MEASURE_TITLES: Record<string, string> = {
  gatewayToUpstream: 'socket event received → upstream request received',
  cpu: '  same window, CPU time of the process',
  sdkToUpstream: 'bare SDK create() → upstream request received (same body)',
  chatToStream: 'ChatService.chat() → provider.stream()',
  cpuToStream: '  same window, CPU time of the process',
  chatToUpstream: 'ChatService.chat() → upstream request received',
};

export function agentOverheadTable(result: AgentOverheadResult): string[] {
  const rows: string[][] = [];
  result.socket.forEach((socketCase, index) => {
    for (const entry of [socketCase, result.sdk[index], result.chatService[index]]) {
      for (const [name, measure] of Object.entries(entry?.measures ?? {})) {
        rows.push([socketCase.label, MEASURE_TITLES[name] ?? name, ...[measure.p50, measure.p95, measure.p99, measure.max].map((value) => value.toFixed(2))]);
      }
    }
  });
  return formatTable(['case', 'window', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'], rows, [0, 1]);
}

if (require.main === module) {
  runAgentOverheadBench({ iterations: numberArgument('iterations'), history: numberArgument('history'), socketOnly: process.argv.includes('--socket-only') })
    .then((result) => {
      console.log(`Service overhead, ${result.iterations} requests per case, warm retrieval cache, SQLite store, demo graph`);
      for (const line of agentOverheadTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

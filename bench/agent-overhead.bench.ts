import { fork } from 'node:child_process';
import * as path from 'node:path';
import { Principal } from '../src/auth/principal';
import { configureLogging } from '../src/observability/logger';
import { LlmCallOptions, LlmCompletion, LlmProvider } from '../src/providers/llm-provider';
import { LlmMessage, LlmToolDefinition } from '../src/conversation/llm-message';
import { LlmStreamChunk } from '../src/providers/llm-stream-chunk';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { AgentHarness, RecordingSink } from '../test/support/agent.harness';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { argumentValue, numberArgument } from './bench-arguments';
import { cpuMsBetween, distribution, Distribution } from './bench-statistics';
import { formatTable } from './bench-table';
import { monotonicMs } from './monotonic-clock';
import type { ServiceTiming } from './service-timing.child-setup';

/**
 * Service overhead of one question (DESIGN.md budget: p99 < 10 ms with a warm retrieval cache),
 * one request at a time, on the real SQLite store with the demo graph, the same question every
 * time (so the retrieval cache is warm after the warm-up). Two cases: the first message of a new
 * thread (thread creation, system prompt) and a follow-up on a thread that already holds
 * `--history` exchanges. Three measurements, in this order:
 *
 * 1. `socket`: the real app alone in a child process (TestAppProcess, as deployed: the client and the
 *    LLM are elsewhere), the socket.io-client and the scripted server in this process. From the moment
 *    Socket.IO has decoded the `ai:chat` event in the service (ReceiptTimingIoAdapter, installed by
 *    service-timing.child-setup.ts) to the moment the scripted server here has received the whole
 *    upstream request; both ends read CLOCK_MONOTONIC (monotonicMs(), checked at the start of every
 *    run). Also, in the service alone: the same start → upstream request written, and the service's
 *    CPU time over that window. Neither the client's nor the scripted server's GC or CPU is the service's.
 * 2. `sdk`: the bare openai SDK in a child process of its own (bare-sdk.child.ts), sending the very
 *    request bodies the service sent in (1), from `create()` to the same moment on the scripted server:
 *    the floor no service can go under, under the same conditions.
 * 3. `chatService`: AskQuestion.execute() called directly in this process (AgentHarness, the scripted
 *    server beside it), to split our code (chat() → provider.stream()) from the SDK and HTTP.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/agent-overhead.bench.js [--iterations 300] [--history 5] [--warmup 300] [--socket-only] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` writes a V8 CPU profile of the service process (1) into DIR.
 */

const GRAPH = 'nba-workflow';
const QUESTION = 'What does the fetch-api node do with errors?';
const ANSWER: ScriptedTurn = {
  text: 'It logs them through error-handler.',
  chunkSize: 64,
  usage: { prompt: 1800, completion: 9, cached: 1500 },
};
const principal: Principal = { userId: 'bench', workspace: 'default', role: 'editor' };

export interface OverheadCase {
  label: string;
  /** Each measure's distribution over the iterations, ms. */
  measures: Record<string, Distribution>;
}

export interface AgentOverheadResult {
  iterations: number;
  historyTurns: number;
  /**
   * Service process: socket event decoded → upstream request received by the scripted server
   * (`gatewayToUpstream`, across processes) and → upstream request written (`gatewayToSent`, service
   * clock), with the service's CPU time over the latter (`cpu`).
   */
  socket: OverheadCase[];
  /** Bare SDK process: create() → upstream request received (`sdkToUpstream`), CPU time until written (`sdkCpu`); same bodies as `socket`. */
  sdk: OverheadCase[];
  /** AskQuestion.execute() → provider.stream() (`chatToStream`, `cpuToStream`) and → upstream received (`chatToUpstream`). */
  chatService: OverheadCase[];
  clock: ClockCheck;
}

/** The cross-process clock check: the service's readings that fell outside this process's round trip (must be 0). */
export interface ClockCheck {
  roundTrips: number;
  violations: number;
  maxRoundTripMs: number;
}

export interface AgentOverheadOptions {
  iterations?: number;
  history?: number;
  /**
   * Requests before measuring (default 300): the service process is fresh, and V8 is still
   * optimising the request path over its first few hundred requests (p50 ~4.8 ms over the first
   * 400, ~3.6 ms after, in a profiled run of 2,150), which a running service is past.
   */
  warmup?: number;
  /** Skip the use-case-direct breakdown (3). */
  socketOnly?: boolean;
  /** Write a V8 CPU profile of the service process into this directory. */
  cpuProfileDir?: string;
}

type Ask = (threadId?: string) => Promise<{ threadId: string; sample: Record<string, number> }>;

/** A new thread's first message, then follow-ups on 20 threads that hold `history` exchanges. */
async function measureCases(
  ask: Ask,
  options: Required<Pick<AgentOverheadOptions, 'iterations' | 'history' | 'warmup'>>,
): Promise<OverheadCase[]> {
  const collect = async (label: string, threadFor: (index: number) => string | undefined): Promise<OverheadCase> => {
    const samples: Record<string, number[]> = {};
    for (let index = 0; index < options.iterations; index++) {
      const { sample } = await ask(threadFor(index));
      for (const [name, value] of Object.entries(sample)) (samples[name] ??= []).push(value);
    }
    return {
      label,
      measures: Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, distribution(values)])),
    };
  };
  for (let index = 0; index < options.warmup; index++) await ask();
  const first = await collect('new thread, first message', () => undefined);
  const threads: string[] = [];
  for (let thread = 0; thread < 20; thread++) {
    let threadId = (await ask()).threadId;
    for (let turn = 1; turn < options.history; turn++) threadId = (await ask(threadId)).threadId;
    threads.push(threadId);
  }
  const followUp = await collect(
    `follow-up (${options.history}+ exchanges of history)`,
    (index) => threads[index % threads.length],
  );
  return [first, followUp];
}

/** The scripted answer, noting when the scripted server received the request (monotonicMs(), this process). */
class UpstreamClock {
  at = 0;

  /** Queues the next answer; forgets the requests recorded so far (nothing is pending: one request at a time). */
  enqueue(server: ScriptedLlmServer): void {
    server.reset();
    server.enqueue(() => {
      this.at = monotonicMs();
      return ANSWER;
    });
  }
}

/**
 * Checks that the service process reads the same monotonic clock as this one: its reading must fall
 * between the two readings of this process around each round trip (with separate clocks or a
 * per-process origin it would be off by seconds or more).
 */
async function checkClock(service: TestAppProcess): Promise<ClockCheck> {
  let violations = 0;
  let maxRoundTripMs = 0;
  const roundTrips = 50;
  for (let index = 0; index < roundTrips; index++) {
    const before = monotonicMs();
    const child = await service.request({ clock: true }, (reply) => (reply as { clock?: number }).clock);
    const after = monotonicMs();
    if (child < before || child > after) violations += 1;
    maxRoundTripMs = Math.max(maxRoundTripMs, after - before);
  }
  if (violations > 0)
    throw new Error(
      `the service process's monotonic clock is not this process's (${violations} of ${roundTrips} readings outside the round trip)`,
    );
  return { roundTrips, violations, maxRoundTripMs };
}

async function measureSocket(
  server: ScriptedLlmServer,
  options: Required<Pick<AgentOverheadOptions, 'iterations' | 'history' | 'warmup'>> &
    Pick<AgentOverheadOptions, 'cpuProfileDir'>,
) {
  const upstream = new UpstreamClock();
  const service = await TestAppProcess.start(
    { ...server.providerEnv('openai'), EMBEDDING_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' },
    {
      setupModule: path.join(__dirname, `service-timing.child-setup${path.extname(__filename)}`),
      execArgv: options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [],
    },
  );
  let client: AiSocketClient | undefined;
  let requestId = 0;
  // The last body sent for a first message and for a follow-up.
  const bodies: Record<'first' | 'followUp', RecordedRequest['body']> = { first: undefined, followUp: undefined };
  try {
    const clock = await checkClock(service);
    client = await AiSocketClient.connect(service.url);
    const connected = client;
    const ask: Ask = async (threadId) => {
      upstream.enqueue(server);
      const recording = await connected.chat({
        _id: ++requestId,
        graphKey: GRAPH,
        message: QUESTION,
        ...(threadId ? { threadId } : {}),
      });
      if (!recording.complete) throw new Error(`ai:chat failed: ${JSON.stringify(recording.error)}`);
      connected.received.length = 0;
      bodies[threadId ? 'followUp' : 'first'] = server.lastRequest?.body;
      // Asked after the answer, so the IPC is outside the window.
      const timings = await service.request(
        { serviceTimings: true },
        (reply) => (reply as { serviceTimings?: ServiceTiming[] }).serviceTimings,
      );
      const timing = timings[0];
      if (timings.length !== 1 || timing.sentAt === undefined || !timing.sentCpu)
        throw new Error(`expected one ai:chat and its upstream request, got ${JSON.stringify(timings)}`);
      return {
        threadId: recording.complete.threadId,
        sample: {
          gatewayToUpstream: upstream.at - timing.receivedAt,
          gatewayToSent: timing.sentAt - timing.receivedAt,
          cpu: cpuMsBetween(timing.receivedCpu, timing.sentCpu),
        },
      };
    };
    const cases = await measureCases(ask, options);
    return { cases, bodies: [bodies.first, bodies.followUp], clock };
  } finally {
    client?.close();
    await service.close();
  }
}

/** The bare SDK in a child process of its own (bare-sdk.child.ts), sending the service's bodies. */
async function measureSdk(
  server: ScriptedLlmServer,
  labels: string[],
  bodies: RecordedRequest['body'][],
  iterations: number,
): Promise<OverheadCase[]> {
  const upstream = new UpstreamClock();
  const child = fork(path.join(__dirname, 'bare-sdk.child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const reply = <T>(pick: (message: Record<string, unknown>) => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: Record<string, unknown>) => {
        const value = message.error ? undefined : pick(message);
        if (value === undefined && !message.error) return;
        child.off('message', onMessage);
        if (message.error) reject(new Error(`bare SDK process: ${String(message.error)}`));
        else resolve(value as T);
      };
      child.on('message', onMessage);
    });
  try {
    const ready = reply((message) => message.ready as boolean | undefined);
    child.send({ baseURL: server.openAiBaseUrl, bodies });
    await ready;
    const cases: OverheadCase[] = [];
    for (const index of bodies.keys()) {
      const samples: Record<string, number[]> = { sdkToUpstream: [], sdkCpu: [] };
      for (let run = -20; run < iterations; run++) {
        upstream.enqueue(server);
        const sent = reply((message) => message.sent as { startedAt: number; cpuMs: number } | undefined);
        child.send({ send: index });
        const { startedAt, cpuMs } = await sent;
        if (run < 0) continue;
        samples.sdkToUpstream.push(upstream.at - startedAt);
        samples.sdkCpu.push(cpuMs);
      }
      cases.push({
        label: labels[index],
        measures: { sdkToUpstream: distribution(samples.sdkToUpstream), sdkCpu: distribution(samples.sdkCpu) },
      });
    }
    return cases;
  } finally {
    child.send({ exit: true });
  }
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
    this.streamCalledAt = monotonicMs();
    this.streamCalledCpu = process.cpuUsage();
    return this.inner.stream(messages, tools, options);
  }
}

async function measureAskQuestion(
  server: ScriptedLlmServer,
  options: Required<Pick<AgentOverheadOptions, 'iterations' | 'history' | 'warmup'>>,
): Promise<OverheadCase[]> {
  const upstream = new UpstreamClock();
  let timed: TimedProvider | undefined;
  const harness = await AgentHarness.create({
    env: server.providerEnv('openai'),
    wrapProvider: (inner) => (timed = new TimedProvider(inner)),
  });
  const provider = timed as TimedProvider;
  try {
    return await measureCases(async (threadId) => {
      upstream.enqueue(server);
      const startedCpu = process.cpuUsage();
      const started = monotonicMs();
      const result = await harness.agent.chat(
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
  const settings = {
    iterations: options.iterations ?? 300,
    history: options.history ?? 5,
    warmup: options.warmup ?? 300,
  };
  const server = await ScriptedLlmServer.start();
  try {
    const socket = await measureSocket(server, { ...settings, cpuProfileDir: options.cpuProfileDir });
    const sdk = await measureSdk(
      server,
      socket.cases.map((entry) => entry.label),
      socket.bodies,
      settings.iterations,
    );
    const chatService = options.socketOnly ? [] : await measureAskQuestion(server, settings);
    return {
      iterations: settings.iterations,
      historyTurns: settings.history,
      socket: socket.cases,
      sdk,
      chatService,
      clock: socket.clock,
    };
  } finally {
    await server.close();
  }
}

const MEASURE_TITLES: Record<string, string> = {
  gatewayToUpstream: 'service process: socket event received → upstream request received',
  gatewayToSent: '  socket event received → upstream request written',
  cpu: '  same window, CPU time of the service process',
  sdkToUpstream: 'bare SDK process: create() → upstream request received (same body)',
  sdkCpu: '  create() → request written, CPU time of that process',
  chatToStream: 'AskQuestion.execute() → provider.stream()',
  cpuToStream: '  same window, CPU time of the process',
  chatToUpstream: 'AskQuestion.execute() → upstream request received',
};

export function agentOverheadClockLine(result: AgentOverheadResult): string {
  const { roundTrips, violations, maxRoundTripMs } = result.clock;
  return `cross-process clock (CLOCK_MONOTONIC): ${violations} of ${roundTrips} service readings outside the round trip (max round trip ${maxRoundTripMs.toFixed(2)} ms)`;
}

export function agentOverheadTable(result: AgentOverheadResult): string[] {
  const rows: string[][] = [];
  result.socket.forEach((socketCase, index) => {
    for (const entry of [socketCase, result.sdk[index], result.chatService[index]]) {
      for (const [name, measure] of Object.entries(entry?.measures ?? {})) {
        rows.push([
          socketCase.label,
          MEASURE_TITLES[name] ?? name,
          ...[measure.p50, measure.p95, measure.p99, measure.max].map((value) => value.toFixed(2)),
        ]);
      }
    }
  });
  return [
    agentOverheadClockLine(result),
    ...formatTable(['case', 'window', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'], rows, [0, 1]),
  ];
}

if (require.main === module) {
  runAgentOverheadBench({
    iterations: numberArgument('iterations'),
    history: numberArgument('history'),
    warmup: numberArgument('warmup'),
    socketOnly: process.argv.includes('--socket-only'),
    cpuProfileDir: argumentValue('cpu-prof'),
  })
    .then((result) => {
      console.log(
        `Service overhead, ${result.iterations} requests per case, warm retrieval cache, SQLite store, demo graph`,
      );
      for (const line of agentOverheadTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

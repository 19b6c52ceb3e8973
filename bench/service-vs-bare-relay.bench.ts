import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { configureLogging } from '../src/observability/logger';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { argumentValue, numberArgument, numberListArgument } from './bench-arguments';
import type { BareRelayTemplate } from './bare-relay.child';
import { distribution, Distribution, median } from './bench-statistics';
import { formatTable } from './bench-table';
import { monotonicMs } from './monotonic-clock';
import { peakRss } from './process-peak-rss';
import { ProcessWindow, resetPeakRss } from './process-window.probe';
import type { RoundRecord, RoundRequest } from './relay-receivers.child';

/**
 * The service against a bare relay of the same shape, in one run on the same fake OpenAI-compatible
 * server. Four processes: this one holds the scripted LLM server
 * (test/support, real SSE wire format, each answer written as fast as the socket takes it); the
 * service runs alone in one (TestAppProcess, SQLite, the demo graph); the bare relay in another
 * (bare-relay.child.ts: the openai SDK streaming into Socket.IO, nothing else, sending the service's
 * own request body); the socket.io-client receivers in a fourth (relay-receivers.child.ts, checking
 * every token). Workload: each conversation a new thread on the demo graph with the same question,
 * a 200-token answer (4-character deltas), with or without one tool round first (the service runs
 * its read tool, the bare relay a trivial local one; each makes a second upstream call); at 1 stream
 * (conversations one after the other), 100 and 1,000 concurrent conversations. Rounds alternate
 * between the two targets; figures are medians over rounds.
 *
 * Per target and case: throughput (answer tokens delivered to all receivers / first emit → last
 * terminal event); emit → upstream request (receiver's emit → the scripted server has parsed the
 * request, CLOCK_MONOTONIC across processes; in a burst the k-th request received is paired with the
 * k-th emit, which bounds the error of every percentile by the emits' spread, reported); emit → first
 * token; CPU time of the target's process per conversation; its event-loop max delay during the round;
 * its peak RSS over the 1,000-conversation rounds (VmHWM, reset before them).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/service-vs-bare-relay.bench.js
 *     [--streams 1,100,1000] [--rounds 5,5,3] [--sequential 100] [--cases plain,tool] [--cpu-prof DIR [--cpu-prof-interval US]] [--out FILE]
 */

const GRAPH = 'nba-workflow';
const QUESTION = 'What does the fetch-api node do with errors?';
export const ANSWER_TOKENS = 200;
const CHUNK_SIZE = 4;
/** 200 deltas of 4 characters. */
const ANSWER =
  'The fetch-api node sends its errors to error-handler, which logs them and returns an empty list of players. '
    .repeat(10)
    .slice(0, ANSWER_TOKENS * CHUNK_SIZE);
const TOOL_CALL = { name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } };
const ROUND_TIMEOUT_MS = 180_000;

export type VersusBareCase = 'plain' | 'tool';
export type TargetName = 'service' | 'bare';

export interface VersusBareConfig {
  streams: number;
  rounds: number;
  /** 1 stream: conversations per round, one after the other. */
  sequential?: number;
}

export interface TargetFigures {
  /** Median over rounds of the answer tokens per second delivered to all receivers. */
  tokensPerSecond: number;
  rounds: number[];
  /** Receiver's emit → first upstream request of the conversation received by the scripted server, every conversation of every round. */
  emitToUpstreamMs: Distribution;
  /** Largest spread of a round's emits (first to last): the bound of the pairing's error in a burst. */
  emitSpreadMs: number;
  /** Receiver's emit → first ai:token. */
  firstTokenMs: Distribution;
  /** Median over rounds of the target process's CPU time per conversation. */
  cpuMsPerConversation: number;
  /** Event-loop delay of the target's process during the rounds: median of the rounds' maxima, and the worst. */
  eventLoopDelayMaxMs: { median: number; worst: number };
  tokenEventsPerConversation: number;
  errors: number;
  errorSamples: string[];
  /** Each round's [start, end] in monotonicMs(): where to look in a CPU profile. */
  windows: Array<[number, number]>;
}

export interface VersusBareRow {
  case: VersusBareCase;
  streams: number;
  /** Conversations per round (streams × sequential). */
  conversations: number;
  rounds: number;
  service: TargetFigures;
  bare: TargetFigures;
  /** service / bare tokens per second. */
  ratio: number;
}

export interface VersusBareResult {
  rows: VersusBareRow[];
  /** VmHWM of each process over the rounds of the largest burst, per case. */
  peakRssBytes: Record<VersusBareCase, Record<TargetName, number>>;
  answerTokens: number;
}

export interface VersusBareOptions {
  configs?: VersusBareConfig[];
  cases?: VersusBareCase[];
  /** Write a V8 CPU profile of the service process into this directory. */
  cpuProfileDir?: string;
  /** Sampling interval of that profile in µs (V8's default: 1,000). */
  cpuProfileIntervalUs?: number;
}

// 100 conversations one after the other at 1 stream: a round of 20 lasted ~0.13 s, and the rounds' rates
// spread by ±10 % on this 2-core machine (a plain ratio of 0.94 in one full run, 0.98–1.17 standalone).
export const DEFAULT_VERSUS_BARE_CONFIGS: VersusBareConfig[] = [
  { streams: 1, rounds: 5, sequential: 100 },
  { streams: 100, rounds: 5 },
  { streams: 1_000, rounds: 3 },
];

interface Target {
  name: TargetName;
  pid: number;
  stats(): Promise<ProcessWindow>;
}

interface MeasuredRound {
  /** monotonicMs() around the round (to find it in a CPU profile of the service). */
  window: [number, number];
  record: RoundRecord;
  receipts: number[];
  stats: ProcessWindow;
  conversations: number;
}

/** The upstream side: answers every chat request of a round, noting when each conversation's first request arrived. */
class FakeUpstream {
  receipts: number[] = [];
  /** The last first-call request body (the bare relay's template). */
  lastFirstBody: RecordedRequest['body'];

  constructor(readonly server: ScriptedLlmServer) {}

  /** Queues the turns of `conversations` conversations (two each with a tool round). */
  prepare(conversations: number, toolRound: boolean): void {
    this.server.reset();
    this.receipts = [];
    const turn = (request: RecordedRequest): ScriptedTurn => {
      const messages: Array<{ role: string }> = request.body?.messages ?? [];
      const afterTool = messages.some((message) => message.role === 'tool');
      if (!afterTool) {
        this.receipts.push(monotonicMs());
        this.lastFirstBody = request.body;
      }
      if (toolRound && !afterTool)
        return { toolCalls: [{ ...TOOL_CALL, fragments: 1 }], usage: { prompt: 1800, completion: 12 } };
      return { text: ANSWER, chunkSize: CHUNK_SIZE, usage: { prompt: 1800, completion: ANSWER_TOKENS } };
    };
    for (let index = 0; index < conversations * (toolRound ? 2 : 1); index++) this.server.enqueue(turn);
  }
}

function waitFor<T>(child: ChildProcess, pick: (message: Record<string, unknown>) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if (message.error) {
        child.off('message', onMessage);
        reject(new Error(String(message.error)));
        return;
      }
      const value = pick(message);
      if (value === undefined) return;
      child.off('message', onMessage);
      resolve(value);
    };
    child.on('message', onMessage);
  });
}

function ask<T>(
  child: ChildProcess,
  message: unknown,
  pick: (message: Record<string, unknown>) => T | undefined,
): Promise<T> {
  const reply = waitFor(child, pick);
  child.send(message as object);
  return reply;
}

class Bench {
  private nextId = 1;

  constructor(
    private readonly upstream: FakeUpstream,
    private readonly receivers: ChildProcess,
  ) {}

  async connect(target: TargetName, url: string, count: number): Promise<void> {
    await ask(this.receivers, { connect: { target, url, count } }, (message) => message.connected);
  }

  async round(target: Target, toolRound: boolean, streams: number, sequential = 1): Promise<MeasuredRound> {
    const conversations = streams * sequential;
    this.upstream.prepare(conversations, toolRound);
    await target.stats();
    const startedAt = monotonicMs();
    const request: RoundRequest = {
      target: target.name,
      firstId: this.nextId,
      streams,
      sequential,
      graphKey: GRAPH,
      question: QUESTION,
      expected: ANSWER,
      timeoutMs: ROUND_TIMEOUT_MS,
    };
    this.nextId += conversations;
    const record = await ask(this.receivers, { round: request }, (message) => message.round as RoundRecord | undefined);
    const endedAt = monotonicMs();
    const stats = await target.stats();
    return { window: [startedAt, endedAt], record, receipts: [...this.upstream.receipts], stats, conversations };
  }
}

function summarize(rounds: MeasuredRound[]): TargetFigures {
  const waits: number[] = [];
  const firstTokens: number[] = [];
  const rates: number[] = [];
  const errors: string[] = [];
  let spread = 0;
  let tokenEvents = 0;
  let conversations = 0;
  for (const { record, receipts } of rounds) {
    const emits = [...record.emits].sort((a, b) => a - b);
    const received = [...receipts].sort((a, b) => a - b);
    // The k-th request received paired with the k-th emit (exact one at a time; in a burst within the emits' spread).
    for (let index = 0; index < Math.min(emits.length, received.length); index++)
      waits.push(received[index] - emits[index]);
    spread = Math.max(spread, emits[emits.length - 1] - emits[0]);
    record.emits.forEach((emit, index) => {
      if (Number.isFinite(record.firstTokens[index])) firstTokens.push(record.firstTokens[index] - emit);
    });
    const ended = Math.max(...record.ends.filter(Number.isFinite));
    const delivered = record.ends.filter(Number.isFinite).length * ANSWER_TOKENS;
    rates.push(delivered / ((ended - emits[0]) / 1000));
    errors.push(...record.errors);
    tokenEvents += record.tokenEvents;
    conversations += record.emits.length;
    if (received.length !== record.emits.length)
      errors.push(`${received.length} upstream requests for ${record.emits.length} conversations`);
  }
  const loopMaxima = rounds.map((round) => round.stats.eventLoopDelayMaxMs);
  return {
    tokensPerSecond: median(rates),
    rounds: rates,
    emitToUpstreamMs: distribution(waits),
    emitSpreadMs: spread,
    firstTokenMs: distribution(firstTokens),
    cpuMsPerConversation: median(rounds.map((round) => round.stats.cpuMs / round.conversations)),
    eventLoopDelayMaxMs: { median: median(loopMaxima), worst: Math.max(...loopMaxima) },
    tokenEventsPerConversation: tokenEvents / conversations,
    errors: errors.length,
    errorSamples: [...new Set(errors)].slice(0, 5),
    windows: rounds.map((round) => round.window),
  };
}

export async function runServiceVsBareRelayBench(options: VersusBareOptions = {}): Promise<VersusBareResult> {
  configureLogging({ level: 'error' });
  const configs = options.configs ?? DEFAULT_VERSUS_BARE_CONFIGS;
  const cases = options.cases ?? ['plain', 'tool'];
  const maxStreams = Math.max(...configs.map((config) => config.streams), 100);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'versus-bare-bench-'));
  const server = await ScriptedLlmServer.start();
  const upstream = new FakeUpstream(server);
  const serviceProcess = await TestAppProcess.start(
    {
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
    },
    {
      execArgv: options.cpuProfileDir
        ? [
            '--cpu-prof',
            '--cpu-prof-dir',
            options.cpuProfileDir,
            ...(options.cpuProfileIntervalUs ? ['--cpu-prof-interval', String(options.cpuProfileIntervalUs)] : []),
          ]
        : [],
    },
  );
  const receivers = fork(path.join(__dirname, `relay-receivers.child${path.extname(__filename)}`), [], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let bareProcess: ChildProcess | undefined;
  try {
    const bench = new Bench(upstream, receivers);
    const service: Target = {
      name: 'service',
      pid: serviceProcess.pid,
      stats: async () => {
        const stats = await serviceProcess.stats();
        return {
          cpuMs: stats.cpuMs,
          eventLoopDelayMaxMs: stats.eventLoopDelayMaxMs,
          eventLoopDelayP99Ms: stats.eventLoopDelayP99Ms,
          rss: stats.rss,
        };
      },
    };
    await bench.connect('service', serviceProcess.url, maxStreams);
    // One conversation with a tool round gives the bare relay the service's own request: messages and tools.
    const probe = await bench.round(service, true, 1);
    if (probe.record.errors.length > 0) throw new Error(`service: ${probe.record.errors[0]}`);
    const body = upstream.lastFirstBody as {
      model: string;
      messages: BareRelayTemplate['messages'];
      tools?: BareRelayTemplate['tools'];
    };
    const template: BareRelayTemplate = { model: body.model, messages: body.messages, tools: body.tools };

    const bareChild = fork(path.join(__dirname, `bare-relay.child${path.extname(__filename)}`), [], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    bareProcess = bareChild;
    const bareUrl = await ask(
      bareChild,
      { baseURL: server.openAiBaseUrl, template },
      (message) => message.url as string | undefined,
    );
    const bare: Target = {
      name: 'bare',
      pid: bareChild.pid as number,
      stats: () => ask(bareChild, { stats: true }, (message) => message.stats as ProcessWindow | undefined),
    };
    await bench.connect('bare', bareUrl, maxStreams);
    const targets = [service, bare];

    const rows: VersusBareRow[] = [];
    const peakRssBytes = {} as VersusBareResult['peakRssBytes'];
    const largest = Math.max(...configs.map((config) => config.streams));
    for (const kind of cases) {
      const toolRound = kind === 'tool';
      // Warm-up of each target (JIT, caches, SQLite statements, upstream connections): 3 bursts of 100, then 20 one after the other.
      for (const target of targets) {
        for (let burst = 0; burst < 3; burst++) await bench.round(target, toolRound, 100);
        await bench.round(target, toolRound, 1, 20);
      }
      for (const config of configs) {
        if (config.streams === largest) for (const target of targets) resetPeakRss(target.pid);
        const measured: Record<TargetName, MeasuredRound[]> = { service: [], bare: [] };
        for (let index = 0; index < config.rounds; index++) {
          // Alternated, so neither target always runs right after the other's burst.
          const order = index % 2 === 0 ? targets : [...targets].reverse();
          for (const target of order)
            measured[target.name].push(await bench.round(target, toolRound, config.streams, config.sequential ?? 1));
        }
        if (config.streams === largest) peakRssBytes[kind] = { service: peakRss(service.pid), bare: peakRss(bare.pid) };
        const serviceFigures = summarize(measured.service);
        const bareFigures = summarize(measured.bare);
        rows.push({
          case: kind,
          streams: config.streams,
          conversations: config.streams * (config.sequential ?? 1),
          rounds: config.rounds,
          service: serviceFigures,
          bare: bareFigures,
          ratio: serviceFigures.tokensPerSecond / bareFigures.tokensPerSecond,
        });
      }
    }
    return { rows, peakRssBytes, answerTokens: ANSWER_TOKENS };
  } finally {
    receivers.disconnect();
    bareProcess?.send({ exit: true });
    await serviceProcess.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const CASE_LABEL: Record<VersusBareCase, string> = { plain: 'no tool', tool: 'tool round' };

export function serviceVsBareTable(result: VersusBareResult): string[] {
  const int = (value: number) => Math.round(value).toLocaleString('en-US');
  const two = (value: number) => value.toFixed(2);
  const lines = formatTable(
    [
      'case',
      'streams',
      'rounds',
      'service tok/s',
      'bare tok/s',
      'ratio',
      'emit→upstream p50 / p99 ms (service | bare)',
      'first token p50 ms (service | bare)',
      'CPU ms/conv (service | bare)',
      'loop max ms (service | bare)',
      'token events/conv (service | bare)',
      'errors',
    ],
    result.rows.map((row) => [
      CASE_LABEL[row.case],
      String(row.streams),
      String(row.rounds),
      int(row.service.tokensPerSecond),
      int(row.bare.tokensPerSecond),
      two(row.ratio),
      `${two(row.service.emitToUpstreamMs.p50)} / ${two(row.service.emitToUpstreamMs.p99)} | ${two(row.bare.emitToUpstreamMs.p50)} / ${two(row.bare.emitToUpstreamMs.p99)}`,
      `${two(row.service.firstTokenMs.p50)} | ${two(row.bare.firstTokenMs.p50)}`,
      `${two(row.service.cpuMsPerConversation)} | ${two(row.bare.cpuMsPerConversation)}`,
      `${int(row.service.eventLoopDelayMaxMs.median)} | ${int(row.bare.eventLoopDelayMaxMs.median)}`,
      `${row.service.tokenEventsPerConversation.toFixed(1)} | ${row.bare.tokenEventsPerConversation.toFixed(1)}`,
      `${row.service.errors} | ${row.bare.errors}${[...row.service.errorSamples, ...row.bare.errorSamples].map((sample) => ` (${sample})`).join('')}`,
    ]),
    [0],
  );
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  for (const [kind, peak] of Object.entries(result.peakRssBytes)) {
    lines.push(
      `peak RSS over the largest bursts, ${CASE_LABEL[kind as VersusBareCase]}: service ${mb(peak.service)}, bare relay ${mb(peak.bare)}`,
    );
  }
  const spreads = result.rows.map((row) => row.service.emitSpreadMs);
  lines.push(
    `emit spread of a round (bound of the burst pairing's error): up to ${Math.max(...spreads).toFixed(1)} ms`,
  );
  return lines;
}

if (require.main === module) {
  const streams = numberListArgument('streams');
  const rounds = numberListArgument('rounds');
  const sequential = numberArgument('sequential') ?? 100;
  const configs = streams
    ? streams.map((count, index) => ({
        streams: count,
        rounds: rounds?.[Math.min(index, rounds.length - 1)] ?? 3,
        ...(count === 1 ? { sequential } : {}),
      }))
    : undefined;
  runServiceVsBareRelayBench({
    configs,
    cases: argumentValue('cases')?.split(',') as VersusBareCase[] | undefined,
    cpuProfileDir: argumentValue('cpu-prof'),
    cpuProfileIntervalUs: numberArgument('cpu-prof-interval'),
  })
    .then((result) => {
      console.log(`Service vs bare relay: ${ANSWER_TOKENS}-token answers, a new thread each, node ${process.version}`);
      for (const line of serviceVsBareTable(result)) console.log(line);
      const out = argumentValue('out');
      if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

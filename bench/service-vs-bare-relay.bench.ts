import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { configureLogging } from '../src/observability/logger';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { argumentValue, numberArgument, numberListArgument } from './bench-arguments';
import { distribution, Distribution, median } from './bench-statistics';
import { formatTable } from './bench-table';
import { monotonicMs } from './monotonic-clock';
import { peakRss } from './process-peak-rss';
import { ProcessWindow, resetPeakRss } from './process-window.probe';
import type { RoundRecord, RoundRequest } from './relay-receivers.child';
import type { RelayTemplate } from './relay-workload';

/**
 * The service against the relays of bench/bare-relay.child.ts, in one run on the same fake OpenAI-compatible
 * server. Five processes: this one holds the scripted LLM server (test/support, real SSE wire format, each answer
 * written as fast as the socket takes it, or one delta every 20 ms in the paced case); the service runs alone in
 * one (TestAppProcess, SQLite, the demo graph); each relay in another: the *bare relay*, the baseline (the openai
 * SDK as shipped, one `ai:token` per delta, as a user writes it), the *same-shape relay* (the same with the
 * service's HTTP path and token coalescing), and the frameworks' relays as their documentation writes them (the AI
 * SDK's `streamText`, a LangGraph.js agent graph with a checkpointer; one `ai:token` per delta), each speaking the
 * same Socket.IO contract (relay-socket.server.ts); the socket.io-client receivers in the last one
 * (relay-receivers.child.ts, checking every token). Workload: each conversation a new thread on the demo graph
 * with the same question, a 200-token answer (4-character deltas), with or without one tool round first (the
 * service runs its read tool, the relays a trivial local one; each makes a second upstream call); at 1 stream
 * (conversations one after the other), 100 and 1,000 concurrent conversations, and 1,000 paced at 20 ms per
 * token. Rounds alternate between the targets (the order rotating), and after each round the bench waits until
 * its target is idle (two windows of 100 ms under 2 ms of CPU each) and counts that CPU into the round's: the
 * service's background work after its answers (memory updates) is its cost, and never runs during another
 * target's round. Figures are medians over rounds, with their spread (smallest and largest round).
 *
 * Per target and case: throughput (answer tokens delivered to all receivers / first emit → last terminal event);
 * emit → upstream request (receiver's emit → the scripted server has parsed the request, CLOCK_MONOTONIC across
 * processes; in a burst the k-th request received is paired with the k-th emit, which bounds the error of every
 * percentile by the emits' spread, reported); emit → first token; CPU time of the target's process per
 * conversation, background included; its event-loop max delay during the round; its peak RSS over the
 * 1,000-conversation rounds (VmHWM, reset before them). The frameworks' relays run only in the rows whose stream
 * count is in `--framework-streams` (default 1 and 100: at 1,000 streams each framework would add minutes to
 * `npm run bench`).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/service-vs-bare-relay.bench.js
 *     [--streams 1,100,1000] [--rounds 5,5,3] [--sequential 100] [--cases plain,tool,paced] [--paced-rounds 3]
 *     [--targets service,bare,same-shape,ai-sdk,langgraph] [--framework-streams 1,100]
 *     [--cpu-prof DIR [--cpu-prof-interval US]] [--out FILE]
 */

export const GRAPH = 'nba-workflow';
export const QUESTION = 'What does the fetch-api node do with errors?';
export const ANSWER_TOKENS = 200;
const CHUNK_SIZE = 4;
/** 200 deltas of 4 characters. */
export const ANSWER =
  'The fetch-api node sends its errors to error-handler, which logs them and returns an empty list of players. '
    .repeat(10)
    .slice(0, ANSWER_TOKENS * CHUNK_SIZE);
const TOOL_CALL = { name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } };
/** The paced case: one delta every 20 ms, as a model streams (a 200-token answer lasts 4 s). */
export const PACED_TOKEN_MS = 20;
const ROUND_TIMEOUT_MS = 180_000;
/** A target is idle after two windows of this length in which it used less than IDLE_CPU_SHARE of a core. */
const SETTLE_WINDOW_MS = 100;
const IDLE_CPU_SHARE = 0.02;
const SETTLE_TIMEOUT_MS = 30_000;

export type VersusBareCase = 'plain' | 'tool' | 'paced';
export type FrameworkName = 'ai-sdk' | 'langgraph';
export type TargetName = 'service' | 'bare' | 'same-shape' | FrameworkName;
export const FRAMEWORK_NAMES: readonly FrameworkName[] = ['ai-sdk', 'langgraph'];
export const TARGET_NAMES: readonly TargetName[] = ['service', 'bare', 'same-shape', ...FRAMEWORK_NAMES];
/** The stream counts at which the frameworks' relays run by default. */
export const DEFAULT_FRAMEWORK_STREAMS: readonly number[] = [1, 100];

function isFramework(name: TargetName): name is FrameworkName {
  return (FRAMEWORK_NAMES as readonly string[]).includes(name);
}

export interface VersusBareConfig {
  streams: number;
  rounds: number;
  /** 1 stream: conversations per round, one after the other. */
  sequential?: number;
}

/** A median over rounds with the smallest and largest round. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface TargetFigures {
  /** Answer tokens per second delivered to all receivers, over rounds. */
  tokensPerSecond: Spread;
  rounds: number[];
  /** Receiver's emit → first upstream request of the conversation received by the scripted server, every conversation of every round. */
  emitToUpstreamMs: Distribution;
  /** Largest spread of a round's emits (first to last): the bound of the pairing's error in a burst. */
  emitSpreadMs: number;
  /** Receiver's emit → first ai:token. */
  firstTokenMs: Distribution;
  /** The target process's CPU time per conversation, its work after the round until idle included, over rounds. */
  cpuMsPerConversation: Spread;
  /** The part of it after the round's last terminal event (the service's memory updates), median over rounds. */
  backgroundCpuMsPerConversation: number;
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
  /** The baseline: the openai SDK as shipped, one ai:token per delta. */
  bare: TargetFigures;
  /** The bare relay with the service's transport (absent when not run). */
  sameShape?: TargetFigures;
  /** The frameworks' relays run in this row. */
  frameworks: Partial<Record<FrameworkName, TargetFigures>>;
  /** service / bare tokens per second (medians), and the smallest and largest of the rounds' pairs. */
  ratio: number;
  ratioRange: [number, number];
  /** 1-minute load average at the row's start and end. */
  loadAverage: [number, number];
}

export interface VersusBareResult {
  rows: VersusBareRow[];
  /** VmHWM of each process over the rounds of the largest burst, per case. */
  peakRssBytes: Partial<Record<VersusBareCase, Partial<Record<TargetName, number>>>>;
  answerTokens: number;
  targets: TargetName[];
}

export interface VersusBareOptions {
  configs?: VersusBareConfig[];
  cases?: VersusBareCase[];
  /** Rounds of the paced case (1,000 streams). */
  pacedRounds?: number;
  targets?: TargetName[];
  /** The stream counts of the rows the frameworks' relays run in (default DEFAULT_FRAMEWORK_STREAMS). */
  frameworkStreams?: readonly number[];
  /** Write a V8 CPU profile of the service process into this directory. */
  cpuProfileDir?: string;
  /** Sampling interval of that profile in µs (V8's default: 1,000). */
  cpuProfileIntervalUs?: number;
}

// 100 conversations one after the other at 1 stream: a round of 20 lasted ~0.13 s, and the rounds' rates
// spread by ±10 % on this 2-core machine.
export const DEFAULT_VERSUS_BARE_CONFIGS: VersusBareConfig[] = [
  { streams: 1, rounds: 5, sequential: 100 },
  { streams: 100, rounds: 5 },
  { streams: 1_000, rounds: 3 },
];
const PACED_STREAMS = 1_000;
/** The warm-up's bursts: 3 of this many conversations, then 20 one after the other. */
const WARM_UP_BURST = 100;

export interface Target {
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
  /** CPU time after the round until the target was idle. */
  settleCpuMs: number;
  conversations: number;
}

/** The upstream side: answers every chat request of a round, noting when each conversation's first request arrived. */
export class FakeUpstream {
  receipts: number[] = [];
  /** The last first-call request body (the bare relay's template). */
  lastFirstBody: RecordedRequest['body'];

  constructor(readonly server: ScriptedLlmServer) {}

  /** Queues the turns of `conversations` conversations (two each with a tool round). */
  prepare(conversations: number, toolRound: boolean, tokenDelayMs = 0): void {
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
      return {
        text: ANSWER,
        chunkSize: CHUNK_SIZE,
        usage: { prompt: 1800, completion: ANSWER_TOKENS },
        ...(tokenDelayMs > 0 ? { delayMs: tokenDelayMs } : {}),
      };
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

/** Waits until the target has been idle for two windows; returns the CPU it used meanwhile. */
export async function settle(target: Target): Promise<number> {
  const started = monotonicMs();
  let cpuMs = 0;
  let quiet = 0;
  while (quiet < 2 && monotonicMs() - started < SETTLE_TIMEOUT_MS) {
    await sleep(SETTLE_WINDOW_MS);
    const window = await target.stats();
    cpuMs += window.cpuMs;
    quiet = window.cpuMs < SETTLE_WINDOW_MS * IDLE_CPU_SHARE ? quiet + 1 : 0;
  }
  return cpuMs;
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

  async round(
    target: Target,
    toolRound: boolean,
    streams: number,
    sequential = 1,
    tokenDelayMs = 0,
  ): Promise<MeasuredRound> {
    const conversations = streams * sequential;
    this.upstream.prepare(conversations, toolRound, tokenDelayMs);
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
    const receipts = [...this.upstream.receipts];
    const settleCpuMs = await settle(target);
    return { window: [startedAt, endedAt], record, receipts, stats, settleCpuMs, conversations };
  }
}

function spreadOf(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
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
    tokensPerSecond: spreadOf(rates),
    rounds: rates,
    emitToUpstreamMs: distribution(waits),
    emitSpreadMs: spread,
    firstTokenMs: distribution(firstTokens),
    cpuMsPerConversation: spreadOf(
      rounds.map((round) => (round.stats.cpuMs + round.settleCpuMs) / round.conversations),
    ),
    backgroundCpuMsPerConversation: median(rounds.map((round) => round.settleCpuMs / round.conversations)),
    eventLoopDelayMaxMs: { median: median(loopMaxima), worst: Math.max(...loopMaxima) },
    tokenEventsPerConversation: tokenEvents / conversations,
    errors: errors.length,
    errorSamples: [...new Set(errors)].slice(0, 5),
    windows: rounds.map((round) => round.window),
  };
}

/** Each relay's child script and, for a script with several, its shape. */
const RELAY_CHILDREN: Record<Exclude<TargetName, 'service'>, { script: string; shape?: string }> = {
  bare: { script: 'bare-relay.child', shape: 'user' },
  'same-shape': { script: 'bare-relay.child', shape: 'same-shape' },
  'ai-sdk': { script: 'ai-sdk-relay.child' },
  langgraph: { script: 'langgraph-relay.child' },
};

/** A relay in a process of its own, listening (from the TypeScript sources under Jest, as TestAppProcess does). */
export async function startRelay(
  name: Exclude<TargetName, 'service'>,
  baseURL: string,
  template: RelayTemplate,
  execArgv: string[] = [],
): Promise<{ child: ChildProcess; target: Target; url: string }> {
  const extension = path.extname(__filename);
  const { script, shape } = RELAY_CHILDREN[name];
  const child = fork(path.join(__dirname, `${script}${extension}`), [], {
    execArgv: [
      ...process.execArgv,
      ...(extension === '.ts' ? ['--require', path.join(__dirname, '../test/support/swc-register.js')] : []),
      ...execArgv,
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await ask(child, { baseURL, template, shape }, (message) => message.url as string | undefined);
  const target: Target = {
    name,
    pid: child.pid as number,
    stats: () => ask(child, { stats: true }, (message) => message.stats as ProcessWindow | undefined),
  };
  return { child, target, url };
}

export async function runServiceVsBareRelayBench(options: VersusBareOptions = {}): Promise<VersusBareResult> {
  configureLogging({ level: 'error' });
  const configs = options.configs ?? DEFAULT_VERSUS_BARE_CONFIGS;
  const cases = options.cases ?? ['plain', 'tool', 'paced'];
  const names = TARGET_NAMES.filter((name) => (options.targets ?? TARGET_NAMES).includes(name));
  if (!names.includes('service') || !names.includes('bare')) throw new Error('the targets include service and bare');
  const pacedRounds = options.pacedRounds ?? 3;
  const frameworkStreams = options.frameworkStreams ?? DEFAULT_FRAMEWORK_STREAMS;
  const runsIn = (name: TargetName, streams: number) => !isFramework(name) || frameworkStreams.includes(streams);
  const rowStreams = [...configs.map((config) => config.streams), ...(cases.includes('paced') ? [PACED_STREAMS] : [])];
  /** Sockets each target needs: its largest row, and the warm-up's bursts of 100. */
  const socketsFor = (name: TargetName) =>
    Math.max(WARM_UP_BURST, ...rowStreams.filter((streams) => runsIn(name, streams)));
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
      // A loaded machine can take longer than the default 20 s to boot the app.
      timeoutMs: 120_000,
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
  const relays: ChildProcess[] = [];
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
    await bench.connect('service', serviceProcess.url, socketsFor('service'));
    // One conversation with a tool round gives the relays the service's own request: messages and tools.
    const probe = await bench.round(service, true, 1);
    if (probe.record.errors.length > 0) throw new Error(`service: ${probe.record.errors[0]}`);
    const body = upstream.lastFirstBody as {
      model: string;
      messages: RelayTemplate['messages'];
      tools?: RelayTemplate['tools'];
    };
    const template: RelayTemplate = { model: body.model, messages: body.messages, tools: body.tools };

    const targets: Target[] = [service];
    for (const name of names) {
      if (name === 'service' || !rowStreams.some((streams) => runsIn(name, streams))) continue;
      const relay = await startRelay(name, server.openAiBaseUrl, template);
      relays.push(relay.child);
      targets.push(relay.target);
      await bench.connect(name, relay.url, socketsFor(name));
    }

    const rows: VersusBareRow[] = [];
    const peakRssBytes: VersusBareResult['peakRssBytes'] = {};
    const largest = Math.max(...configs.map((config) => config.streams));
    for (const kind of cases) {
      const toolRound = kind === 'tool';
      const tokenDelayMs = kind === 'paced' ? PACED_TOKEN_MS : 0;
      const caseConfigs = kind === 'paced' ? [{ streams: PACED_STREAMS, rounds: pacedRounds }] : configs;
      // Warm-up of each target (JIT, caches, SQLite statements, upstream connections): 3 bursts of 100, then 20 one
      // after the other. The paced case runs warm from the plain one.
      if (kind !== 'paced') {
        for (const target of targets) {
          if (!caseConfigs.some((config) => runsIn(target.name, config.streams))) continue;
          for (let burst = 0; burst < 3; burst++) await bench.round(target, toolRound, WARM_UP_BURST);
          await bench.round(target, toolRound, 1, 20);
        }
      }
      for (const config of caseConfigs) {
        const rowTargets = targets.filter((target) => runsIn(target.name, config.streams));
        const peakRow = kind !== 'paced' && config.streams === largest;
        if (peakRow) for (const target of rowTargets) resetPeakRss(target.pid);
        const loadAtStart = loadavg()[0];
        const measured = new Map<TargetName, MeasuredRound[]>(rowTargets.map((target) => [target.name, []]));
        for (let index = 0; index < config.rounds; index++) {
          // The order rotates, so no target always runs right after the same other one.
          const order = rowTargets.map((_, position) => rowTargets[(position + index) % rowTargets.length]);
          for (const target of order)
            measured
              .get(target.name)
              ?.push(await bench.round(target, toolRound, config.streams, config.sequential ?? 1, tokenDelayMs));
        }
        if (peakRow)
          peakRssBytes[kind] = Object.fromEntries(rowTargets.map((target) => [target.name, peakRss(target.pid)]));
        const figures = new Map([...measured].map(([name, rounds]) => [name, summarize(rounds)]));
        const serviceFigures = figures.get('service') as TargetFigures;
        const bareFigures = figures.get('bare') as TargetFigures;
        const pairs = serviceFigures.rounds.map((rate, index) => rate / bareFigures.rounds[index]);
        rows.push({
          case: kind,
          streams: config.streams,
          conversations: config.streams * (config.sequential ?? 1),
          rounds: config.rounds,
          service: serviceFigures,
          bare: bareFigures,
          ...(figures.has('same-shape') ? { sameShape: figures.get('same-shape') } : {}),
          frameworks: Object.fromEntries(
            FRAMEWORK_NAMES.flatMap((name) => {
              const framework = figures.get(name);
              return framework ? [[name, framework]] : [];
            }),
          ),
          ratio: serviceFigures.tokensPerSecond.median / bareFigures.tokensPerSecond.median,
          ratioRange: [Math.min(...pairs), Math.max(...pairs)],
          loadAverage: [loadAtStart, loadavg()[0]],
        });
      }
    }
    return { rows, peakRssBytes, answerTokens: ANSWER_TOKENS, targets: names };
  } finally {
    receivers.disconnect();
    for (const relay of relays) relay.send({ exit: true });
    await serviceProcess.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const CASE_LABEL: Record<VersusBareCase, string> = {
  plain: 'no tool',
  tool: 'tool round',
  paced: `${PACED_TOKEN_MS} ms/token`,
};

/** "median (min–max)" */
export function spreadText(spread: Spread, digits = 0): string {
  const format = (value: number) => (digits === 0 ? Math.round(value).toLocaleString('en-US') : value.toFixed(digits));
  return `${format(spread.median)} (${format(spread.min)}–${format(spread.max)})`;
}

export function serviceVsBareTable(result: VersusBareResult): string[] {
  const two = (value: number) => value.toFixed(2);
  const sameShape = result.targets.includes('same-shape');
  const lines = formatTable(
    [
      'case',
      'streams',
      'rounds',
      'service tok/s (min–max)',
      'bare tok/s (min–max)',
      'ratio (pairs min–max)',
      ...(sameShape ? ['same-shape tok/s', 'service / same-shape'] : []),
      'emit→upstream p50 / p99 ms (service | bare)',
      'first token p50 ms (service | bare)',
      'CPU ms/conv (service | bare)',
      'service background CPU ms/conv',
      ...(sameShape ? ['same-shape CPU ms/conv'] : []),
      'loop max ms (service | bare)',
      'token events/conv (service | bare)',
      'load 1 min',
      'errors',
    ],
    result.rows.map((row) => [
      CASE_LABEL[row.case],
      String(row.streams),
      String(row.rounds),
      spreadText(row.service.tokensPerSecond),
      spreadText(row.bare.tokensPerSecond),
      `${two(row.ratio)} (${two(row.ratioRange[0])}–${two(row.ratioRange[1])})`,
      ...(sameShape && row.sameShape
        ? [
            spreadText(row.sameShape.tokensPerSecond),
            two(row.service.tokensPerSecond.median / row.sameShape.tokensPerSecond.median),
          ]
        : []),
      `${two(row.service.emitToUpstreamMs.p50)} / ${two(row.service.emitToUpstreamMs.p99)} | ${two(row.bare.emitToUpstreamMs.p50)} / ${two(row.bare.emitToUpstreamMs.p99)}`,
      `${two(row.service.firstTokenMs.p50)} | ${two(row.bare.firstTokenMs.p50)}`,
      `${spreadText(row.service.cpuMsPerConversation, 2)} | ${spreadText(row.bare.cpuMsPerConversation, 2)}`,
      two(row.service.backgroundCpuMsPerConversation),
      ...(sameShape && row.sameShape ? [spreadText(row.sameShape.cpuMsPerConversation, 2)] : []),
      `${Math.round(row.service.eventLoopDelayMaxMs.median)} | ${Math.round(row.bare.eventLoopDelayMaxMs.median)}`,
      `${row.service.tokenEventsPerConversation.toFixed(1)} | ${row.bare.tokenEventsPerConversation.toFixed(1)}`,
      `${row.loadAverage[0].toFixed(1)}→${row.loadAverage[1].toFixed(1)}`,
      `${row.service.errors} | ${row.bare.errors}${[...row.service.errorSamples, ...row.bare.errorSamples].map((sample) => ` (${sample})`).join('')}`,
    ]),
    [0],
  );
  const mb = (bytes: number | undefined) => `${((bytes ?? Number.NaN) / 1024 / 1024).toFixed(0)} MB`;
  for (const [kind, peak] of Object.entries(result.peakRssBytes)) {
    lines.push(
      `peak RSS over the largest bursts, ${CASE_LABEL[kind as VersusBareCase]}: service ${mb(peak.service)}, bare relay ${mb(peak.bare)}` +
        (['same-shape', ...FRAMEWORK_NAMES] as const)
          .filter((name) => peak[name] !== undefined)
          .map((name) => `, ${name} relay ${mb(peak[name])}`)
          .join(''),
    );
  }
  const spreads = result.rows.map((row) => row.service.emitSpreadMs);
  lines.push(
    `emit spread of a round (bound of the burst pairing's error): up to ${Math.max(...spreads).toFixed(1)} ms`,
  );
  if (result.rows.some((row) => Object.keys(row.frameworks).length > 0)) lines.push('', ...frameworksTable(result));
  return lines;
}

/** The rows the frameworks ran in, one line per target: the service and each framework beside the bare relay. */
export function frameworksTable(result: VersusBareResult): string[] {
  const two = (value: number) => value.toFixed(2);
  return formatTable(
    [
      'case',
      'streams',
      'target',
      'tok/s (min–max)',
      '× bare tok/s',
      'emit→upstream p50 / p99 ms',
      'first token p50 ms',
      'CPU ms/conv (min–max)',
      '× bare CPU',
      'token events/conv',
      'errors',
    ],
    result.rows
      .filter((row) => Object.keys(row.frameworks).length > 0)
      .flatMap((row) =>
        (
          [
            ['service', row.service],
            ['bare', row.bare],
            ...FRAMEWORK_NAMES.flatMap((name) => (row.frameworks[name] ? [[name, row.frameworks[name]]] : [])),
          ] as Array<[TargetName, TargetFigures]>
        ).map(([name, figures]) => [
          CASE_LABEL[row.case],
          String(row.streams),
          name,
          spreadText(figures.tokensPerSecond),
          two(figures.tokensPerSecond.median / row.bare.tokensPerSecond.median),
          `${two(figures.emitToUpstreamMs.p50)} / ${two(figures.emitToUpstreamMs.p99)}`,
          two(figures.firstTokenMs.p50),
          spreadText(figures.cpuMsPerConversation, 2),
          two(figures.cpuMsPerConversation.median / row.bare.cpuMsPerConversation.median),
          figures.tokenEventsPerConversation.toFixed(1),
          `${figures.errors}${figures.errorSamples.map((sample) => ` (${sample})`).join('')}`,
        ]),
      ),
    [0, 2],
  );
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
    pacedRounds: numberArgument('paced-rounds'),
    targets: argumentValue('targets')?.split(',') as TargetName[] | undefined,
    frameworkStreams: numberListArgument('framework-streams'),
    cpuProfileDir: argumentValue('cpu-prof'),
    cpuProfileIntervalUs: numberArgument('cpu-prof-interval'),
  })
    .then((result) => {
      console.log(
        `Service vs bare relay: ${ANSWER_TOKENS}-token answers, a new thread each, node ${process.version}, load average ${loadavg()
          .map((value) => value.toFixed(2))
          .join(' / ')}`,
      );
      for (const line of serviceVsBareTable(result)) console.log(line);
      const out = argumentValue('out');
      if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

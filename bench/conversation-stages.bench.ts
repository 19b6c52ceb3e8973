import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { configureLogging } from '../src/observability/logger';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { argumentValue, numberArgument } from './bench-arguments';
import type { RelayTemplate } from './relay-workload';
import { formatTable } from './bench-table';
import { readCpuProfile, stageSamples, StageRule } from './cpu-profile.stages';
import { monotonicMs } from './monotonic-clock';
import {
  ANSWER,
  FakeUpstream,
  GRAPH,
  QUESTION,
  settle,
  startRelay,
  Target,
  VersusBareCase,
} from './service-vs-bare-relay.bench';

/**
 * Where one conversation's CPU goes, stage by stage, in the service and in the bare relay (the openai SDK as
 * shipped, one `ai:token` per delta: bench/bare-relay.child.ts), on the workload of the service-vs-bare bench (a
 * new thread on the demo graph, the same question, a 200-token answer, with or without a tool round). Each target
 * runs twice in a process of its own: once as it is, for its CPU time, once under V8's sampling profiler
 * (--cpu-prof, one sample every 100 µs: the sampling thread's own CPU would count in the first figure); this process
 * holds the scripted LLM server and one socket.io-client, which runs the conversations one after the other. After a
 * warm-up, each case's window spans its conversations and the target's work after them until it is idle (the
 * service's memory updates included). The process's CPU time over the window (all threads) divided by the
 * conversations is the CPU per conversation; it is split over the stages in the proportions of the profiled window's
 * non-idle samples, each sample's stage read from its stack (cpu-profile.stages.ts, STAGE_RULES below).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/conversation-stages.bench.js
 *     [--conversations 300] [--warmup 300] [--cases plain,tool] [--service-only] [--scripts] [--keep-profiles DIR]
 *     [--out FILE]
 *
 * `--service-only` leaves the bare relay out (a before/after comparison of the service's own figures, in half the
 * time).
 * `--scripts` also prints the unattributed samples by leaf script (where a new rule is missing); `--keep-profiles`
 * keeps the two profiles (open them in Chrome DevTools, or read them with cpu-profile.stages.ts).
 */

const PROFILE_INTERVAL_US = 100;

/** The stages of a conversation, in the order of its life. */
export const STAGES = [
  'socket and validation',
  'auth and rate limit',
  'thread creation',
  'retrieval',
  'prompt assembly',
  'upstream request',
  'stream relay',
  'tool round',
  'commit',
  'events',
  'memory',
  'logging',
  'run bookkeeping',
  'garbage collection',
  'native, outside JavaScript',
  'unattributed',
] as const;

/** Samples of the bench's own probes in the measured process, not counted. */
const BENCH_PROBE = 'bench probe';

const src = (pathPattern: string) => new RegExp(`/(dist/)?src/${pathPattern}`);
const lib = (name: string) => new RegExp(`/node_modules/${name}/`);

/**
 * Logging is logging wherever it is called from. The service's own files name their stage (the deepest one in a
 * sample's stack wins: a thread write called by the commit is the commit's, by the thread's creation the
 * creation's). Library frames decide only when no file of ours is in the stack (a library working after an await).
 */
export const STAGE_RULES: { overrideRules: StageRule[]; ownRules: StageRule[]; libraryRules: StageRule[] } = {
  overrideRules: [
    // The bench's own readings of the process (IPC, memory and CPU probes): left out of the shares.
    {
      stage: BENCH_PROBE,
      url: /(test\/support\/test-app\.child|bench\/process-window\.probe|node:internal\/child_process)/,
    },
    { stage: 'logging', url: lib('(pino|pino-std-serializers|sonic-boom|thread-stream|nestjs-pino|fast-redact)') },
    { stage: 'logging', url: src('observability/(logger|ai-event\\.logger|nest-logger|personal-data\\.masker)') },
  ],
  ownRules: [
    // The bare relay: its one file, by function.
    { stage: 'upstream request', url: /bench\/bare-relay\.child/, functionName: /^(create|withQuestion)$/ },
    { stage: 'stream relay', url: /bench\/bare-relay\.child/ },
    {
      stage: 'socket and validation',
      url: src('ai/(socket/(ai\\.gateway|socket-message\\.inbox|socket-payload\\.validator)|chat-input)'),
    },
    { stage: 'socket and validation', url: src('(ai/dto|ai/socket/dto|validation)/') },
    { stage: 'auth and rate limit', url: src('(auth|policy/member-roles)/') },
    {
      stage: 'thread creation',
      url: src('ai/runs/question\\.run'),
      functionName: /^(start|startConversation|checkedProvider|systemPrompt)$/,
    },
    { stage: 'thread creation', url: src('threads/thread\\.service'), functionName: /^(createForRun|create)$/ },
    { stage: 'commit', url: src('ai/runs/(thread-round\\.writer|round-commit)') },
    { stage: 'commit', url: src('ai/runs/thread-runner'), functionName: /commit|finish|release|record/i },
    { stage: 'memory', url: src('memory/') },
    { stage: 'retrieval', url: src('rag/') },
    { stage: 'prompt assembly', url: src('ai/(context|prompts)/') },
    { stage: 'prompt assembly', url: src('ai/runs/question\\.run'), functionName: /^answer$/ },
    { stage: 'events', url: src('ai/(events|runs/(in-memory-run-event\\.log|degradable-run-event\\.log|run-event))') },
    // The sink's one way out: the stage of the event it sends (a token flush: the relay's; the others: events').
    { stage: 'events', url: src('ai/socket/socket-run\\.sink'), functionName: /^send$/, shared: true },
    {
      stage: 'events',
      url: src('ai/socket/socket-run\\.sink'),
      functionName: /^(thread|event|complete|fail|toolStart|toolResult|leased)$/,
    },
    { stage: 'events', url: src('ai/agent/held-events\\.sink') },
    { stage: 'stream relay', url: src('ai/socket/(socket-run\\.sink|token-flush\\.scheduler)') },
    { stage: 'stream relay', url: src('providers/(upstream-stream\\.(relay|guard)|openai-stream\\.assembler)') },
    { stage: 'upstream request', url: src('providers/') },
    { stage: 'tool round', url: src('ai/(tools|actions)/') },
    { stage: 'tool round', url: src('changes/') },
    { stage: 'stream relay', url: src('ai/agent/') },
    { stage: 'run bookkeeping', url: src('ai/') },
    // Shared layers: the stage of whoever calls them (the thread store: creation, commit or memory's reads).
    { stage: 'commit', url: src('threads/'), shared: true },
    { stage: 'retrieval', url: src('(graph|embeddings)/'), shared: true },
    { stage: 'run bookkeeping', url: src(''), shared: true },
  ],
  libraryRules: [
    // The SDK reading the event stream (its SSE splitter and line decoder) after an await.
    {
      stage: 'stream relay',
      url: lib('openai'),
      functionName: /iter|SSE|[dD]ecode|concatBytes|findDoubleNewline|next|fromSSE|flush|Stream|controller/,
    },
    { stage: 'upstream request', url: lib('(openai|undici|@anthropic-ai)') },
    // Node's own fetch (the bare relay's SDK as shipped): the request and the body's reads.
    { stage: 'upstream request', url: /^node:internal\/deps\/undici/ },
    { stage: 'commit', url: lib('better-sqlite3') },
    {
      stage: 'socket and validation',
      url: lib(
        '(socket\\.io|socket\\.io-parser|socket\\.io-adapter|engine\\.io|engine\\.io-parser|ws|@nestjs/websockets|@nestjs/platform-socket\\.io)',
      ),
    },
    { stage: 'socket and validation', url: lib('(ajv|class-validator|class-transformer)') },
    { stage: 'run bookkeeping', url: lib('(@nestjs/core|@nestjs/common|rxjs|prom-client)') },
  ],
};

export interface StageFigures {
  target: 'service' | 'bare';
  case: VersusBareCase;
  conversations: number;
  /** Process CPU time (all threads) over the window / conversations. */
  cpuMsPerConversation: number;
  /** Main-thread non-idle samples × interval / conversations (the profile's own measure, wall time of the thread). */
  sampledMsPerConversation: number;
  stages: Array<{ stage: string; share: number; cpuMs: number }>;
  /** The unattributed samples by leaf script (--scripts). */
  unattributedScripts?: Array<{ script: string; share: number }>;
  loadAverage: [number, number];
}

export interface ConversationStagesResult {
  rows: StageFigures[];
  profileIntervalUs: number;
}

export interface ConversationStagesOptions {
  conversations?: number;
  warmup?: number;
  cases?: VersusBareCase[];
  scripts?: boolean;
  /** Keep the two CPU profiles in this directory (service.cpuprofile, bare.cpuprofile). */
  keepProfilesDir?: string;
  /** Measure the service alone, without the bare relay. */
  serviceOnly?: boolean;
}

interface Window {
  case: VersusBareCase;
  window: [number, number];
  cpuMs: number;
  loadAverage: [number, number];
}

/** Runs `count` conversations one after the other on `client`, each checked. */
async function converse(
  client: AiSocketClient,
  upstream: FakeUpstream,
  count: number,
  toolRound: boolean,
  nextId: () => number,
): Promise<void> {
  upstream.prepare(count, toolRound);
  for (let index = 0; index < count; index++) {
    const recording = await client.chat({ _id: nextId(), graphKey: GRAPH, message: QUESTION }, 60_000);
    if (recording.text !== ANSWER || recording.complete?.fullText !== ANSWER)
      throw new Error(`wrong answer: ${recording.error?.error ?? `${recording.text.length} characters`}`);
  }
  client.received.length = 0;
}

async function measure(target: Target, url: string, upstream: FakeUpstream, options: Settings): Promise<Window[]> {
  const client = await AiSocketClient.connect(url);
  let id = 1;
  const nextId = () => id++;
  try {
    for (const kind of options.cases) await converse(client, upstream, options.warmup, kind === 'tool', nextId);
    const windows: Window[] = [];
    for (const kind of options.cases) {
      await settle(target);
      await target.stats();
      const load = loadavg()[0];
      const start = monotonicMs();
      await converse(client, upstream, options.conversations, kind === 'tool', nextId);
      const cpuMs = (await target.stats()).cpuMs + (await settle(target));
      windows.push({ case: kind, window: [start, monotonicMs()], cpuMs, loadAverage: [load, loadavg()[0]] });
    }
    return windows;
  } finally {
    client.close();
  }
}

function figuresOf(
  targetName: 'service' | 'bare',
  profileFile: string,
  profiled: Window[],
  unprofiled: Window[],
  conversations: number,
  scripts: boolean,
): StageFigures[] {
  const profile = readCpuProfile(profileFile);
  return profiled.map(({ case: kind, window }) => {
    const measured = unprofiled.find((candidate) => candidate.case === kind) as Window;
    const samples = stageSamples(profile, [window], STAGE_RULES).filter((entry) => entry.stage !== BENCH_PROBE);
    const total = samples.reduce((sum, entry) => sum + entry.samples, 0);
    const cpuMsPerConversation = measured.cpuMs / conversations;
    const stages = STAGES.map((stage) => {
      const share = (samples.find((entry) => entry.stage === stage)?.samples ?? 0) / total;
      return { stage, share, cpuMs: share * cpuMsPerConversation };
    });
    const unattributed = samples.find((entry) => entry.stage === 'unattributed')?.leafScripts ?? new Map();
    const leafScripts = scripts
      ? [...unattributed]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15)
          .map(([script, count]) => ({ script, share: count / total }))
      : undefined;
    return {
      target: targetName,
      case: kind,
      conversations,
      cpuMsPerConversation,
      sampledMsPerConversation: (total * PROFILE_INTERVAL_US) / 1000 / conversations,
      stages,
      ...(leafScripts ? { unattributedScripts: leafScripts } : {}),
      loadAverage: measured.loadAverage,
    };
  });
}

/**
 * The main thread's profile of the one process profiled in `directory`. Its worker threads (the local embedding
 * model's, the index builds') inherit --cpu-prof and write their own: `CPU.<date>.<time>.<pid>.<thread>.<n>`,
 * thread 0 the main one. Their CPU counts in the process's time, shared over the stages with the main thread's.
 */
function newestProfile(directory: string): string {
  const files = readdirSync(directory).filter((file) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(file));
  if (files.length !== 1) throw new Error(`${files.length} main-thread CPU profiles in ${directory}, expected one`);
  return path.join(directory, files[0]);
}

export async function runConversationStagesBench(
  options: ConversationStagesOptions = {},
): Promise<ConversationStagesResult> {
  configureLogging({ level: 'error' });
  const settings = {
    conversations: options.conversations ?? 300,
    warmup: options.warmup ?? 300,
    cases: options.cases ?? (['plain', 'tool'] as VersusBareCase[]),
  };
  const profileFlags = (directory: string) => [
    '--cpu-prof',
    '--cpu-prof-dir',
    directory,
    '--cpu-prof-interval',
    String(PROFILE_INTERVAL_US),
  ];
  const serviceProfiles = mkdtempSync(path.join(tmpdir(), 'conversation-stages-service-'));
  const bareProfiles = mkdtempSync(path.join(tmpdir(), 'conversation-stages-bare-'));
  const server = await ScriptedLlmServer.start();
  const upstream = new FakeUpstream(server);
  try {
    // Each target twice: without the profiler for its CPU time (the sampling thread's own CPU would count), then with
    // it for the stages' shares.
    const serviceCpu = await measureService(server, upstream, settings, []);
    const serviceProfiled = await measureService(server, upstream, settings, profileFlags(serviceProfiles));
    const body = upstream.lastFirstBody as {
      model: string;
      messages: RelayTemplate['messages'];
      tools?: RelayTemplate['tools'];
    };
    const template: RelayTemplate = { model: body.model, messages: body.messages, tools: body.tools };
    const serviceRows = figuresOf(
      'service',
      newestProfile(serviceProfiles),
      serviceProfiled,
      serviceCpu,
      settings.conversations,
      !!options.scripts,
    );
    if (options.keepProfilesDir) {
      mkdirSync(options.keepProfilesDir, { recursive: true });
      copyFileSync(newestProfile(serviceProfiles), path.join(options.keepProfilesDir, 'service.cpuprofile'));
    }
    if (options.serviceOnly) return { rows: serviceRows, profileIntervalUs: PROFILE_INTERVAL_US };
    const bareCpu = await measureBare(server, upstream, settings, template, []);
    const bareProfiled = await measureBare(server, upstream, settings, template, profileFlags(bareProfiles));
    if (options.keepProfilesDir)
      copyFileSync(newestProfile(bareProfiles), path.join(options.keepProfilesDir, 'bare.cpuprofile'));
    return {
      rows: [
        ...serviceRows,
        ...figuresOf(
          'bare',
          newestProfile(bareProfiles),
          bareProfiled,
          bareCpu,
          settings.conversations,
          !!options.scripts,
        ),
      ],
      profileIntervalUs: PROFILE_INTERVAL_US,
    };
  } finally {
    await server.close();
    for (const directory of [serviceProfiles, bareProfiles]) rmSync(directory, { recursive: true, force: true });
  }
}

type Settings = Required<Omit<ConversationStagesOptions, 'scripts' | 'keepProfilesDir' | 'serviceOnly'>>;

/** The service in a process of its own (a fresh store), measured, then closed (which writes its profile). */
async function measureService(
  server: ScriptedLlmServer,
  upstream: FakeUpstream,
  settings: Settings,
  execArgv: string[],
): Promise<Window[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'conversation-stages-bench-'));
  const serviceProcess = await TestAppProcess.start(
    {
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
    },
    // A loaded machine can take longer than the default 20 s to boot the app.
    { execArgv, timeoutMs: 120_000 },
  );
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
  try {
    return await measure(service, serviceProcess.url, upstream, settings);
  } finally {
    await serviceProcess.close(60_000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The bare relay in a process of its own, measured, then ended (which writes its profile). */
async function measureBare(
  server: ScriptedLlmServer,
  upstream: FakeUpstream,
  settings: Settings,
  template: RelayTemplate,
  execArgv: string[],
): Promise<Window[]> {
  const relay = await startRelay('bare', server.openAiBaseUrl, template, execArgv);
  try {
    return await measure(relay.target, relay.url, upstream, settings);
  } finally {
    await new Promise<void>((resolve) => {
      relay.child.once('exit', () => resolve());
      relay.child.send({ exit: true });
    });
  }
}

export function conversationStagesTable(result: ConversationStagesResult): string[] {
  const lines: string[] = [];
  const kinds = [...new Set(result.rows.map((row) => row.case))];
  for (const kind of kinds) {
    const service = result.rows.find((row) => row.target === 'service' && row.case === kind);
    const bare = result.rows.find((row) => row.target === 'bare' && row.case === kind);
    if (!service) continue;
    if (!bare) {
      lines.push(
        `${kind === 'tool' ? 'tool round' : 'no tool'}: CPU per conversation, service ${service.cpuMsPerConversation.toFixed(2)} ms; ` +
          `sampled main thread ${service.sampledMsPerConversation.toFixed(2)} ms; ` +
          `load ${service.loadAverage[0].toFixed(1)}→${service.loadAverage[1].toFixed(1)}`,
      );
      lines.push(
        ...formatTable(
          ['stage', 'service ms/conv', 'service share'],
          STAGES.map((stage) => {
            const mine = service.stages.find((entry) => entry.stage === stage);
            return [stage, (mine?.cpuMs ?? 0).toFixed(2), `${((mine?.share ?? 0) * 100).toFixed(1)} %`];
          }),
          [0],
        ),
      );
    } else {
      lines.push(
        `${kind === 'tool' ? 'tool round' : 'no tool'}: CPU per conversation, service ${service.cpuMsPerConversation.toFixed(2)} ms, ` +
          `bare relay ${bare.cpuMsPerConversation.toFixed(2)} ms (${(service.cpuMsPerConversation / bare.cpuMsPerConversation).toFixed(2)} ×); ` +
          `sampled main thread ${service.sampledMsPerConversation.toFixed(2)} / ${bare.sampledMsPerConversation.toFixed(2)} ms; ` +
          `load ${service.loadAverage[0].toFixed(1)}→${bare.loadAverage[1].toFixed(1)}`,
      );
      lines.push(
        ...formatTable(
          ['stage', 'service ms/conv', 'service share', 'bare ms/conv', 'bare share', 'service − bare ms'],
          STAGES.map((stage) => {
            const mine = service.stages.find((entry) => entry.stage === stage);
            const theirs = bare.stages.find((entry) => entry.stage === stage);
            return [
              stage,
              (mine?.cpuMs ?? 0).toFixed(2),
              `${((mine?.share ?? 0) * 100).toFixed(1)} %`,
              (theirs?.cpuMs ?? 0).toFixed(2),
              `${((theirs?.share ?? 0) * 100).toFixed(1)} %`,
              ((mine?.cpuMs ?? 0) - (theirs?.cpuMs ?? 0)).toFixed(2),
            ];
          }),
          [0],
        ),
      );
    }
    for (const row of bare ? [service, bare] : [service])
      if (row.unattributedScripts) {
        lines.push(`unattributed samples by leaf script, ${row.target}, ${kind}:`);
        for (const entry of row.unattributedScripts)
          lines.push(`  ${(entry.share * 100).toFixed(1).padStart(5)} %  ${entry.script}`);
      }
  }
  return lines;
}

if (require.main === module) {
  runConversationStagesBench({
    conversations: numberArgument('conversations'),
    warmup: numberArgument('warmup'),
    cases: argumentValue('cases')?.split(',') as VersusBareCase[] | undefined,
    scripts: process.argv.includes('--scripts'),
    keepProfilesDir: argumentValue('keep-profiles'),
    serviceOnly: process.argv.includes('--service-only'),
  })
    .then((result) => {
      for (const line of conversationStagesTable(result)) console.log(line);
      const out = argumentValue('out');
      if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

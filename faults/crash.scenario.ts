import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { seededRandom } from '../test/support/seeded-random';
import { TestAppProcess } from '../test/support/test-app.process';
import { armFile, FaultHook, hitFile } from './crash-window.probe';
import { threadProblems } from './thread-validity';

const GRAPH = 'nba-workflow';
/** Between two upstream events: a scripted answer streams for a few hundred milliseconds, so kills land anywhere in it. */
const CHUNK_DELAY_MS = 8;
/** The dead process's run lease expires this soon (THREAD_LEASE_MS), so the next message is not refused for long. */
const LEASE_MS = 1_000;
/** The child's setup module that holds the process inside an aimed window (compiled like this file). */
const CRASH_WINDOW_PROBE = path.join(__dirname, `crash-window.probe${path.extname(__filename)}`);

/** The windows a kill is aimed at. */
export const KILL_PHASES = ['at ai:thread', 'streaming', 'tool round', 'commit'] as const;
export type KillPhase = (typeof KILL_PHASES)[number];

/** Of the kills aimed at a window, this share at least must land in it (the section's bar). */
export const LANDED_SHARE_MIN = 0.8;

export interface CrashScenarioOptions {
  /** Service processes killed (SIGKILL), each aimed at one window of a scripted conversation. */
  kills: number;
  /**
   * How many are aimed at the moment the client receives `ai:thread` (the message must already be
   * stored); the rest are spread over streaming, a tool round and a commit. Default: a fifth of the kills.
   */
  killsAtThread?: number;
  seed?: number;
}

/** Kills aimed at a window, and how many landed in it (checked, not assumed: see each phase). */
export interface PhaseCount {
  aimed: number;
  landed: number;
}

export interface CrashScenarioResult {
  kills: number;
  /** Restarts of the service on the same data directory (one per kill). */
  restarts: number;
  threads: number;
  /** Threads that failed threadProblems() after a restart (missing tool results, repeated rounds, lost or doubled messages). */
  invalidThreads: number;
  /**
   * Messages the service had acknowledged missing after the restart. A message is acknowledged by its
   * `ai:thread` (stored before it), unless a refusal (thread_busy,
   * budget_exceeded) follows: then nothing was stored, as the client is told.
   */
  lostMessages: number;
  /** Messages acknowledged before the kill (what lostMessages is counted over). */
  acknowledgedMessages: number;
  /** Kills sent the moment the client received ai:thread (the message must be stored already). */
  killsAtThread: number;
  /** Of those, the messages missing after the restart (part of lostMessages). */
  lostAtThread: number;
  /** Threads that did not answer a next message after the restart. */
  notResumable: number;
  /** Per window: kills aimed at it and kills that landed in it. */
  phases: Record<KillPhase, PhaseCount>;
  /** The kills that did not land where they were aimed, and what the client had received. */
  missed: string[];
  problems: string[];
}

interface TrackedThread {
  threadId: string;
  /** Messages whose storage the client saw acknowledged. */
  acknowledged: string[];
}

/** One scripted conversation turn set: a round with a read tool or a proposal, then an answer, streamed slowly. */
function conversationTurns(random: () => number): ScriptedTurn[] {
  const proposes = random() < 0.3;
  const call = proposes
    ? {
        name: 'propose_create_node',
        arguments: {
          nodeKey: `log-${Math.floor(random() * 1e9)}`,
          typeKey: 'log-node',
          sheet: '0',
          posX: 820,
          posY: 300,
          reason: 'Log the errors',
        },
      }
    : { name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } };
  const turns: ScriptedTurn[] = [
    {
      text: 'Let me look at the node first, then I will answer.',
      chunkSize: 3,
      delayMs: CHUNK_DELAY_MS,
      toolCalls: [call],
    },
  ];
  if (!proposes)
    turns.push({
      text: 'The fetch-api node calls the NBA stats API and sends failures to error-handler.',
      chunkSize: 3,
      delayMs: CHUNK_DELAY_MS,
    });
  return turns;
}

/** A long streamed answer and nothing else: ~0.5 s of ai:token events. */
function streamingTurns(): ScriptedTurn[] {
  return [
    {
      text: 'The fetch-api node calls the NBA stats API for the active players, then hands the rows to filter-active; its failures go to error-handler, which logs them and returns a message.',
      chunkSize: 3,
      delayMs: CHUNK_DELAY_MS,
    },
  ];
}

/** A round with a read tool, then an answer. */
function toolTurns(): ScriptedTurn[] {
  return [
    {
      text: 'Let me look at the node first.',
      chunkSize: 3,
      delayMs: CHUNK_DELAY_MS,
      toolCalls: [{ name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
    },
    { text: 'It calls the NBA stats API.', chunkSize: 3, delayMs: CHUNK_DELAY_MS },
  ];
}

/** SIGKILLs the service from the handler of the request's `event` (the `nth` one); resolves once it is dead. */
function killOnEvent(
  client: AiSocketClient,
  requestId: number,
  service: TestAppProcess,
  event: 'ai:thread' | 'ai:token',
  nth = 1,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const timer = setTimeout(() => {
      client.socket.off(event, onEvent);
      service.kill('SIGKILL').then(() => resolve(false), reject);
    }, 5_000);
    const onEvent = (payload: { _id: number | null }) => {
      if (payload._id !== requestId || (seen += 1) < nth) return;
      clearTimeout(timer);
      client.socket.off(event, onEvent);
      service.kill('SIGKILL').then(() => resolve(true), reject);
    };
    client.socket.on(event, onEvent);
  });
}

/** SIGKILLs the service once it is held inside the armed `hook` (its hit file appears); true when it was. */
async function killWhenHeld(dataDir: string, hook: FaultHook, service: TestAppProcess): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (!existsSync(hitFile(dataDir, hook)) && Date.now() < deadline) await sleep(2);
  const held = existsSync(hitFile(dataDir, hook));
  await service.kill('SIGKILL');
  return held;
}

/** The windows of `kills` kills, `atThread` of them at ai:thread, the rest spread evenly, in a seeded order. */
function killPlan(kills: number, atThread: number, random: () => number): KillPhase[] {
  const others: KillPhase[] = ['streaming', 'tool round', 'commit'];
  const plan: KillPhase[] = [
    ...Array.from({ length: atThread }, () => 'at ai:thread' as const),
    ...Array.from({ length: kills - atThread }, (_, index) => others[index % others.length]),
  ];
  for (let index = plan.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [plan[index], plan[other]] = [plan[other], plan[index]];
  }
  return plan;
}

/**
 * `kill -9` of the service aimed at the windows a crash threatens: the moment
 * `ai:thread` arrives (the message must be stored), mid-stream (an `ai:token` arrived, no terminal
 * event), mid tool round (the process held inside a read tool, before its round is committed:
 * crash-window.probe.ts) and mid commit (the process held inside the SQLite transaction of a thread
 * commit), each followed by a restart on the same data directory. Each phase counts the kills that
 * landed in it, checked: a streaming kill landed when no terminal event reached the client, a tool
 * round or commit kill when the process was held in that window when it died. After every restart,
 * every thread must be valid (threadProblems) and hold every message whose storage the client saw
 * acknowledged; the conversation then goes on on the new process (resumability), and at the end
 * every thread answers one more message.
 */
export async function runCrashScenario(options: CrashScenarioOptions): Promise<CrashScenarioResult> {
  const random = seededRandom(options.seed ?? 1);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-crash-'));
  const server = await ScriptedLlmServer.start();
  const env = {
    ...server.providerEnv('openai'),
    DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    THREAD_LEASE_MS: String(LEASE_MS),
    LOG_LEVEL: 'error',
  };
  const result: CrashScenarioResult = {
    kills: 0,
    restarts: 0,
    threads: 0,
    invalidThreads: 0,
    lostMessages: 0,
    acknowledgedMessages: 0,
    killsAtThread: 0,
    lostAtThread: 0,
    notResumable: 0,
    phases: Object.fromEntries(KILL_PHASES.map((phase) => [phase, { aimed: 0, landed: 0 }])) as Record<
      KillPhase,
      PhaseCount
    >,
    missed: [],
    problems: [],
  };
  const threads: TrackedThread[] = [];
  const plan = killPlan(
    options.kills,
    Math.min(options.kills, options.killsAtThread ?? Math.ceil(options.kills / 5)),
    random,
  );
  const start = () => TestAppProcess.start(env, { timeoutMs: 60_000, setupModule: CRASH_WINDOW_PROBE });
  let service = await start();
  let id = 0;
  try {
    for (const [kill, phase] of plan.entries()) {
      const client = await AiSocketClient.connect(service.url);
      const thread = threads.length > 0 && random() < 0.7 ? threads[Math.floor(random() * threads.length)] : null;
      const message = `Question ${kill}: what does fetch-api do?`;
      server.reset();
      const toolRound = phase === 'tool round' || (phase === 'commit' && random() < 0.5);
      server.enqueue(
        ...(phase === 'at ai:thread'
          ? conversationTurns(random)
          : phase === 'streaming'
            ? streamingTurns()
            : toolRound
              ? toolTurns()
              : streamingTurns()),
      );
      const requestId = ++id;
      // The commit to die in: the request's first one (its message) or, once it streams, its next round's.
      const commitAtStart = phase === 'commit' && random() < 0.4;
      if (phase === 'tool round') writeFileSync(armFile(dataDir, 'tool'), '');
      if (commitAtStart) writeFileSync(armFile(dataDir, 'commit'), '');
      const killed =
        phase === 'at ai:thread'
          ? killOnEvent(client, requestId, service, 'ai:thread')
          : phase === 'streaming'
            ? killOnEvent(client, requestId, service, 'ai:token', 1 + Math.floor(random() * 4))
            : phase === 'tool round'
              ? killWhenHeld(dataDir, 'tool', service)
              : commitAtStart
                ? killWhenHeld(dataDir, 'commit', service)
                : new Promise<boolean>((resolve, reject) => {
                    client.socket.once('ai:token', () => {
                      writeFileSync(armFile(dataDir, 'commit'), '');
                      killWhenHeld(dataDir, 'commit', service).then(resolve, reject);
                    });
                  });
      client.socket.emit('ai:chat', {
        _id: requestId,
        graphKey: GRAPH,
        message,
        ...(thread ? { threadId: thread.threadId } : {}),
      });
      const held = await killed;
      // A hook still armed would hold the next process: the arming belongs to this kill only.
      for (const hook of ['tool', 'commit'] as const) {
        rmSync(armFile(dataDir, hook), { force: true });
        rmSync(hitFile(dataDir, hook), { force: true });
      }
      client.close();
      result.kills += 1;

      const events = client.eventsOf(requestId);
      const names = events.map((event) => event.event);
      const terminal = names.includes('ai:complete') || names.includes('ai:error');
      const landed =
        phase === 'at ai:thread'
          ? held
          : phase === 'streaming'
            ? held && names.includes('ai:token') && !terminal
            : held && !terminal;
      result.phases[phase].aimed += 1;
      if (landed) result.phases[phase].landed += 1;
      else result.missed.push(`kill ${kill} aimed at ${phase}: received ${names.join(', ') || 'nothing'}`);
      if (phase === 'at ai:thread' && held) result.killsAtThread += 1;
      const point = phase;
      const aimed = phase === 'at ai:thread';
      const threadId = (
        events.find((event) => event.event === 'ai:thread')?.payload as { threadId?: string } | undefined
      )?.threadId;
      const refusal = (events.find((event) => event.event === 'ai:error')?.payload as { code?: string } | undefined)
        ?.code;
      const acknowledged = threadId !== undefined && refusal !== 'thread_busy' && refusal !== 'budget_exceeded';
      let tracked = thread;
      if (threadId && !tracked) {
        tracked = { threadId, acknowledged: [] };
        threads.push(tracked);
      }
      if (tracked && acknowledged) tracked.acknowledged.push(message);

      service = await start();
      result.restarts += 1;
      // Every thread, after every restart: valid, and holding every acknowledged message.
      for (const known of threads) {
        const view = (await request(service.url).get(`/api/ai/thread/${known.threadId}`)).body;
        if (!Array.isArray(view.messages)) {
          result.problems.push(
            `kill ${kill}: thread ${known.threadId} unreadable: ${JSON.stringify(view).slice(0, 200)}`,
          );
          continue;
        }
        if (
          known === tracked &&
          aimed &&
          acknowledged &&
          !view.messages.some(
            (item: { role: string; content: string }) => item.role === 'user' && item.content === message,
          )
        ) {
          result.lostAtThread += 1;
        }
        const problems = threadProblems(view, known.acknowledged);
        if (problems.length > 0)
          result.problems.push(`kill ${kill} (${point}): thread ${known.threadId}: ${problems.join('; ')}`);
      }
      // A message it holds without an acknowledgement counts from now on: it must not go away either.
      if (tracked) {
        const view = (await request(service.url).get(`/api/ai/thread/${tracked.threadId}`)).body;
        if (
          !tracked.acknowledged.includes(message) &&
          view.messages?.some(
            (item: { role: string; content: string }) => item.role === 'user' && item.content === message,
          )
        ) {
          tracked.acknowledged.push(message);
        }
      }
    }

    // Resumable: every thread answers one more message on the last process (once the dead one's lease is gone).
    await sleep(LEASE_MS);
    const client = await AiSocketClient.connect(service.url);
    try {
      for (const known of threads) {
        server.reset();
        server.enqueue({ text: 'Still here.' });
        const next = `Still there? (${known.threadId})`;
        const answer = await client.chat(
          { _id: ++id, graphKey: GRAPH, threadId: known.threadId, message: next },
          30_000,
        );
        if (answer.complete?.fullText !== 'Still here.') {
          result.notResumable += 1;
          result.problems.push(
            `thread ${known.threadId} did not resume: ${JSON.stringify(answer.error ?? answer.names)}`,
          );
          continue;
        }
        known.acknowledged.push(next);
      }
    } finally {
      client.close();
    }
    const invalid = new Set<string>();
    for (const problem of result.problems) {
      const match = /thread (ai_\w+)/.exec(problem);
      if (match) invalid.add(match[1]);
    }
    for (const known of threads) {
      const view = (await request(service.url).get(`/api/ai/thread/${known.threadId}`)).body;
      const problems = threadProblems(view, known.acknowledged);
      if (problems.length > 0) {
        invalid.add(known.threadId);
        result.problems.push(`at the end: thread ${known.threadId}: ${problems.join('; ')}`);
      }
      result.lostMessages += known.acknowledged.filter(
        (text) =>
          !view.messages?.some(
            (item: { role: string; content: string }) => item.role === 'user' && item.content === text,
          ),
      ).length;
      result.acknowledgedMessages += known.acknowledged.length;
    }
    result.threads = threads.length;
    result.invalidThreads = invalid.size;
    return result;
  } finally {
    await service.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

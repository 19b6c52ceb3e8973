import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { seededRandom } from '../test/support/seeded-random';
import { TestAppProcess } from '../test/support/test-app.process';
import { threadProblems } from './thread-validity';

const GRAPH = 'nba-workflow';
/** Between two upstream events: a scripted answer streams for a few hundred milliseconds, so kills land anywhere in it. */
const CHUNK_DELAY_MS = 8;
/** The dead process's run lease expires this soon (THREAD_LEASE_MS), so the next message is not refused for long. */
const LEASE_MS = 1_000;

export interface CrashScenarioOptions {
  /** Service processes killed (SIGKILL), each at a random moment of a scripted conversation. */
  kills: number;
  /**
   * Of those, how many are aimed at the narrowest window: the kill is sent the moment the client
   * receives `ai:thread` (the message must already be stored). Default: a fifth of the kills.
   */
  killsAtThread?: number;
  seed?: number;
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
   * `ai:thread` (stored before it, docs/protocol-notes.md), unless a refusal (thread_busy,
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
  /** Where in the conversation the kills landed. */
  killPoints: Record<string, number>;
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

/** SIGKILLs the service from the handler of the request's ai:thread; resolves once it is dead. */
function killOnThreadEvent(client: AiSocketClient, requestId: number, service: TestAppProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.socket.off('ai:thread', onThread);
      service.kill('SIGKILL').then(resolve, reject);
    }, 5_000);
    const onThread = (payload: { _id: number | null }) => {
      if (payload._id !== requestId) return;
      clearTimeout(timer);
      client.socket.off('ai:thread', onThread);
      service.kill('SIGKILL').then(resolve, reject);
    };
    client.socket.on('ai:thread', onThread);
  });
}

/** Where a kill landed, from what the client had received. */
function killPoint(names: string[]): string {
  if (names.includes('ai:complete') || names.includes('ai:error')) return 'after the terminal event';
  if (names.includes('ai:tool_result')) return 'after a tool round';
  if (names.includes('ai:tool_start')) return 'during a tool round';
  if (names.includes('ai:token')) return 'mid-stream';
  if (names.includes('ai:thread')) return 'after ai:thread, before the first token';
  return 'before ai:thread';
}

/**
 * `kill -9` of the service at random moments of scripted conversations (streams, read-tool rounds,
 * proposals), each followed by a restart on the same data directory (docs/reliability.md). After
 * every restart, every thread must be valid (threadProblems) and hold every message whose storage
 * the client saw acknowledged; the conversation then goes on on the new process (resumability), and
 * at the end every thread answers one more message.
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
    killPoints: {},
    problems: [],
  };
  const threads: TrackedThread[] = [];
  const killsAtThread = Math.min(options.kills, options.killsAtThread ?? Math.ceil(options.kills / 5));
  // Spread over the run: every n-th kill is aimed at ai:thread.
  const atThread = new Set(
    Array.from({ length: killsAtThread }, (_, index) => Math.floor(((index + 0.5) * options.kills) / killsAtThread)),
  );
  let service = await TestAppProcess.start(env, { timeoutMs: 60_000 });
  let id = 0;
  try {
    for (let kill = 0; kill < options.kills; kill += 1) {
      const client = await AiSocketClient.connect(service.url);
      const thread = threads.length > 0 && random() < 0.7 ? threads[Math.floor(random() * threads.length)] : null;
      const message = `Question ${kill}: what does fetch-api do?`;
      server.reset();
      server.enqueue(...conversationTurns(random));
      const requestId = ++id;
      const aimed = atThread.has(kill);
      const killed = aimed ? killOnThreadEvent(client, requestId, service) : null;
      client.socket.emit('ai:chat', {
        _id: requestId,
        graphKey: GRAPH,
        message,
        ...(thread ? { threadId: thread.threadId } : {}),
      });
      if (killed) {
        // The kill goes out from the event handler of ai:thread itself: no other event of the request is read first.
        await killed;
        result.killsAtThread += 1;
      } else {
        // Anywhere from before the request is read to after the answer (~0.8 s of streaming and tools).
        await sleep(Math.floor(random() * 1_000));
        await service.kill('SIGKILL');
      }
      client.close();
      result.kills += 1;

      const events = client.eventsOf(requestId);
      const names = events.map((event) => event.event);
      const point = aimed ? 'the moment ai:thread arrived' : killPoint(names);
      result.killPoints[point] = (result.killPoints[point] ?? 0) + 1;
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

      service = await TestAppProcess.start(env, { timeoutMs: 60_000 });
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

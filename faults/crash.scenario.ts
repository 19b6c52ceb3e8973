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
  seed?: number;
}

export interface CrashScenarioResult {
  kills: number;
  /** Restarts of the service on the same data directory (one per kill). */
  restarts: number;
  threads: number;
  /** Threads that failed threadProblems() after a restart (missing tool results, repeated rounds, lost or doubled messages). */
  invalidThreads: number;
  /** Messages the service had acknowledged (the client received a token, a tool event or the terminal event) missing after the restart. */
  lostMessages: number;
  /** Messages acknowledged before the kill (what lostMessages is counted over). */
  acknowledgedMessages: number;
  /** Kills that came after ai:thread but before the message was stored: the client never saw it acknowledged (docs/reliability.md). */
  cutBeforeStored: number;
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
    ? { name: 'propose_create_node', arguments: { nodeKey: `log-${Math.floor(random() * 1e9)}`, typeKey: 'log-node', sheet: '0', posX: 820, posY: 300, reason: 'Log the errors' } }
    : { name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } };
  const turns: ScriptedTurn[] = [{ text: 'Let me look at the node first, then I will answer.', chunkSize: 3, delayMs: CHUNK_DELAY_MS, toolCalls: [call] }];
  if (!proposes) turns.push({ text: 'The fetch-api node calls the NBA stats API and sends failures to error-handler.', chunkSize: 3, delayMs: CHUNK_DELAY_MS });
  return turns;
}

/** Where a kill landed, from what the client had received. */
function killPoint(names: string[]): string {
  if (names.includes('ai:complete') || names.includes('ai:error')) return 'after the terminal event';
  if (names.includes('ai:tool_result')) return 'after a tool round';
  if (names.includes('ai:tool_start')) return 'during a tool round';
  if (names.includes('ai:token')) return 'mid-stream';
  if (names.includes('ai:thread')) return 'before the first token';
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
    cutBeforeStored: 0,
    notResumable: 0,
    killPoints: {},
    problems: [],
  };
  const threads: TrackedThread[] = [];
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
      client.socket.emit('ai:chat', { _id: requestId, graphKey: GRAPH, message, ...(thread ? { threadId: thread.threadId } : {}) });
      // Anywhere from before the request is read to after the answer (~0.8 s of streaming and tools).
      await sleep(Math.floor(random() * 1_000));
      await service.kill('SIGKILL');
      client.close();
      result.kills += 1;

      const names = client.eventsOf(requestId).map((event) => event.event);
      const point = killPoint(names);
      result.killPoints[point] = (result.killPoints[point] ?? 0) + 1;
      const threadId = (client.eventsOf(requestId).find((event) => event.event === 'ai:thread')?.payload as { threadId?: string } | undefined)?.threadId;
      const acknowledged = names.some((name) => name !== 'ai:thread' && name !== 'ai:error');
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
          result.problems.push(`kill ${kill}: thread ${known.threadId} unreadable: ${JSON.stringify(view).slice(0, 200)}`);
          continue;
        }
        if (known === tracked && threadId && !acknowledged && !view.messages.some((item: { role: string; content: string }) => item.role === 'user' && item.content === message)) {
          result.cutBeforeStored += 1;
        }
        const problems = threadProblems(view, known.acknowledged);
        if (problems.length > 0) result.problems.push(`kill ${kill} (${point}): thread ${known.threadId}: ${problems.join('; ')}`);
      }
      // A message it holds without an acknowledgement counts from now on: it must not go away either.
      if (tracked) {
        const view = (await request(service.url).get(`/api/ai/thread/${tracked.threadId}`)).body;
        if (!tracked.acknowledged.includes(message) && view.messages?.some((item: { role: string; content: string }) => item.role === 'user' && item.content === message)) {
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
        const answer = await client.chat({ _id: ++id, graphKey: GRAPH, threadId: known.threadId, message: next }, 30_000);
        if (answer.complete?.fullText !== 'Still here.') {
          result.notResumable += 1;
          result.problems.push(`thread ${known.threadId} did not resume: ${JSON.stringify(answer.error ?? answer.names)}`);
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
      result.lostMessages += known.acknowledged.filter((text) => !view.messages?.some((item: { role: string; content: string }) => item.role === 'user' && item.content === text)).length;
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

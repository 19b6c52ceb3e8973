import { performance } from 'node:perf_hooks';
import request from 'supertest';
import { Principal } from '../src/auth/principal';
import { MemoryContextBuilder } from '../src/memory/memory-context.builder';
import { configureLogging } from '../src/observability/logger';
import { ThreadService } from '../src/threads/thread.service';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { RecordedRequest, ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { startTestApp, TestApp } from '../test/support/test-app';
import { numberArgument } from './bench-arguments';
import { distribution, Distribution } from './bench-statistics';
import { formatTable } from './bench-table';
import { benchModel, benchQuestion, FACT_MARKER, isQuestionRequest, isSummaryRequest } from './conversation-script';

/**
 * Conversation memory on a long thread, on the scripted server, the real app in this
 * process, default settings (AI_HISTORY_MAX_TOKENS 24,000, summaries every 8,000 / 4,000 characters,
 * local embeddings), the demo graph:
 *
 * 1. Tokens sent per turn over a scripted 100-turn thread (a fact stated at turn 3 and asked about at
 *    turn 80; the model reads a node with a tool every other question, then answers ~900 characters),
 *    with memory, against the same conversation sending the full history (memory off, no history
 *    budget). Tokens are the scripted server's count of the request that carries the turn's question
 *    (4 characters a token, tool definitions included), at the curve's turns; the totals count every
 *    request (tool rounds too).
 * 2. Recall: is the turn-3 fact (a token name) in what the model receives at turn 80, and through
 *    which part (recalled block, summaries, history)?
 * 3. Memory's cost per turn: summary calls and their tokens, texts embedded.
 * 4. Time to first token with and without memory, on threads of that length (socket.io-client, emit →
 *    first ai:token), the two apps alternating (in turns, each first every other round), one request at
 *    a time, `--think` ms between a request's
 *    end and the next (default 100: a person takes seconds): the previous turn's background work
 *    (embedding, summaries) runs in that pause, the request path (cut, recall) is inside the figure.
 *    The request path's own cost is also timed alone: MemoryContextBuilder.build on the 100-turn thread.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/long-conversation.bench.js [--turns 100] [--ttft 60] [--think 100]
 */

const GRAPH = 'nba-workflow';
/** The caller of the test app (AUTH_MODE=none): the anonymous admin of workspace default. */
const BENCH_PRINCIPAL: Principal = { userId: 'anonymous', workspace: 'default', role: 'admin' };
const CURVE = [10, 25, 50, 100];

export interface LongConversationResult {
  turns: number;
  curve: Array<{ turn: number; withMemory: number; fullHistory: number }>;
  /** Sum of the tokens of every request of the conversation (tool rounds included). */
  totals: { withMemory: number; fullHistory: number };
  recall: { askTurn: number; inContext: boolean; viaRecall: boolean; viaSummaries: boolean; viaHistory: boolean };
  cost: { summaryCalls: number; summaryTokens: number; textsEmbedded: number; records: Record<string, number> };
  ttft: { withMemory: Distribution; withoutMemory: Distribution; requests: number; thinkMs: number };
  /** Of the time to first token, until the question's upstream request reached the scripted server (ms clock). */
  untilUpstream: { withMemory: Distribution; withoutMemory: Distribution };
  /** MemoryContextBuilder.build (cut and recall) on the long thread, alone, ms. */
  requestPath: Distribution;
}

interface Run {
  app: TestApp;
  server: ScriptedLlmServer;
  threadId: string;
}

async function startRun(env: Record<string, string>): Promise<Run> {
  const server = await ScriptedLlmServer.start();
  server.enqueue(...Array.from({ length: 2000 }, () => benchModel));
  const app = await startTestApp({
    ...server.providerEnv('openai'),
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    ...env,
  });
  return { app, server, threadId: '' };
}

async function converse(run: Run, turns: number): Promise<void> {
  for (let turn = 1; turn <= turns; turn += 1) {
    const answer = await request(run.app.url)
      .post('/api/ai/chat')
      .send({ graphKey: GRAPH, message: benchQuestion(turn), ...(run.threadId ? { threadId: run.threadId } : {}) });
    if (answer.status !== 200)
      throw new Error(`turn ${turn} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    // A turn that stopped on a question (the large-prompt confirm, say) sent nothing upstream: its figures would be missing.
    if (answer.body.type !== 'message')
      throw new Error(`turn ${turn} ended as ${answer.body.type}, not an answer: ${JSON.stringify(answer.body)}`);
    run.threadId ||= answer.body.threadId;
  }
}

/** The first request of each turn (the one ending with the question; a tool round follows some of them). */
const questionRequests = (server: ScriptedLlmServer): RecordedRequest[] =>
  server.requests.filter((recorded) => recorded.endpoint === 'openai.chat' && isQuestionRequest(recorded));

async function stop(run: Run): Promise<void> {
  await run.app.close();
  await run.server.close();
}

/** Time from ai:chat to its first ai:token, for `count` follow-ups on each run, the runs alternating. */
async function timeToFirstToken(
  runs: Run[],
  count: number,
  thinkMs: number,
): Promise<{ firstToken: number[][]; upstream: number[][] }> {
  const clients = await Promise.all(runs.map((run) => AiSocketClient.connect(run.app.url)));
  const samples: number[][] = runs.map(() => []);
  const upstream: number[][] = runs.map(() => []);
  try {
    for (let index = 0; index < count; index += 1) {
      // Each round in the other order: neither run always follows the other's work.
      const order = index % 2 === 0 ? runs.map((_, which) => which) : runs.map((_, which) => runs.length - 1 - which);
      for (const which of order) {
        const id = index + 1;
        await new Promise((resolve) => setTimeout(resolve, thinkMs));
        const started = performance.now();
        const startedAt = Date.now();
        const sentBefore = runs[which].server.requests.length;
        clients[which].socket.emit('ai:chat', {
          _id: id,
          graphKey: GRAPH,
          threadId: runs[which].threadId,
          message: benchQuestion(1000 + index),
        });
        await clients[which].firstToken(id, 30_000);
        samples[which].push(performance.now() - started);
        // Until the question's upstream request arrived (ms clock): the app's side of the figure.
        const asked = runs[which].server.requests.slice(sentBefore).find(isQuestionRequest);
        if (asked) upstream[which].push(asked.receivedAt - startedAt);
        await clients[which].terminalOf(id, 30_000);
      }
    }
  } finally {
    for (const client of clients) client.close();
  }
  return { firstToken: samples, upstream };
}

export async function runLongConversationBench(
  options: { turns?: number; ttftRequests?: number; thinkMs?: number } = {},
): Promise<LongConversationResult> {
  configureLogging({ level: 'error' });
  const turns = options.turns ?? 100;
  const ttftRequests = options.ttftRequests ?? 60;
  const thinkMs = options.thinkMs ?? 100;
  const askTurn = Math.min(80, turns);
  const memory = await startRun({});
  // The full history outgrows AI_CONFIRM_ABOVE_TOKENS by turn 50; nobody is there to confirm each turn.
  const full = await startRun({
    MEMORY_ENABLED: 'false',
    AI_HISTORY_MAX_TOKENS: '100000000',
    AI_CONFIRM_ABOVE_TOKENS: '0',
  });
  const plain = await startRun({ MEMORY_ENABLED: 'false' });
  try {
    await converse(memory, turns);
    await converse(full, turns);
    await converse(plain, turns);
    const sent = (run: Run) => questionRequests(run.server).map((recorded) => recorded.prompt?.tokens ?? 0);
    const withMemory = sent(memory);
    const fullHistory = sent(full);
    const everyRequest = (run: Run) =>
      sum(
        run.server.requests
          .filter((recorded) => recorded.endpoint === 'openai.chat' && !isSummaryRequest(recorded))
          .map((recorded) => recorded.prompt?.tokens ?? 0),
      );
    const totals = { withMemory: everyRequest(memory), fullHistory: everyRequest(full) };

    const asked: Array<{ role: string; content: string }> = questionRequests(memory.server)[askTurn - 1].body.messages;
    const holds = (predicate: (message: { role: string; content: string }) => boolean) =>
      asked.some((message) => predicate(message) && String(message.content).includes(FACT_MARKER));
    const viaRecall = holds((message) => String(message.content).startsWith('[Recalled from earlier'));
    const viaSummaries = holds((message) => String(message.content).startsWith('[Conversation so far'));
    const viaHistory = holds((message) => message.role === 'user' || message.role === 'assistant');

    // Memory is written in the background: let it finish before counting what it did.
    const records = await settledMemory(memory, turns);
    const summaries = memory.server.requests.filter(isSummaryRequest);
    const requestPath = await timeRequestPath(memory, 50);
    const ttft = await timeToFirstToken([memory, plain], ttftRequests, thinkMs);
    return {
      turns,
      curve: CURVE.filter((turn) => turn <= turns).map((turn) => ({
        turn,
        withMemory: withMemory[turn - 1],
        fullHistory: fullHistory[turn - 1],
      })),
      totals,
      recall: { askTurn, inContext: viaRecall || viaSummaries || viaHistory, viaRecall, viaSummaries, viaHistory },
      cost: {
        summaryCalls: summaries.length,
        summaryTokens: summaries.reduce((total, recorded) => total + (recorded.prompt?.tokens ?? 0), 0),
        textsEmbedded: records.length,
        records: {
          turns: records.filter((level) => level === 0).length,
          level1: records.filter((level) => level === 1).length,
          level2: records.filter((level) => level === 2).length,
        },
      },
      ttft: {
        withMemory: distribution(ttft.firstToken[0]),
        withoutMemory: distribution(ttft.firstToken[1]),
        requests: ttftRequests,
        thinkMs,
      },
      untilUpstream: { withMemory: distribution(ttft.upstream[0]), withoutMemory: distribution(ttft.upstream[1]) },
      requestPath,
    };
  } finally {
    await Promise.all([stop(memory), stop(full), stop(plain)]);
  }
}

/** Memory's part of a request on the long thread (cut, summaries, recall), timed alone `count` times. */
async function timeRequestPath(run: Run, count: number): Promise<Distribution> {
  const builder = run.app.app.get(MemoryContextBuilder, { strict: false });
  const thread = await run.app.app.get(ThreadService, { strict: false }).load(BENCH_PRINCIPAL, run.threadId);
  const messages = thread.messages.filter((message) => message.role !== 'system');
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await builder.build({
      workspace: thread.workspace,
      threadId: thread.threadId,
      messages,
      question: benchQuestion(3000 + index),
      budget: 20_000,
      currentContextTokens: 1_000,
    });
    samples.push(performance.now() - started);
  }
  return distribution(samples);
}

/** The levels of the thread's records once every turn has its record (the background updates caught up). */
async function settledMemory(run: Run, turns: number): Promise<number[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const records: Array<{ level: number }> = (await request(run.app.url).get(`/api/ai/thread/${run.threadId}/memory`))
      .body;
    if (records.filter((record) => record.level === 0).length >= turns || Date.now() > deadline)
      return records.map((record) => record.level);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export function longConversationTable(result: LongConversationResult): string[] {
  const count = (value: number) => Math.round(value).toLocaleString('en-US');
  const rows = result.curve.map((point) => [
    String(point.turn),
    count(point.withMemory),
    count(point.fullHistory),
    `${((point.withMemory / point.fullHistory) * 100).toFixed(0)} %`,
  ]);
  rows.push([
    'all turns',
    count(result.totals.withMemory),
    count(result.totals.fullHistory),
    `${((result.totals.withMemory / result.totals.fullHistory) * 100).toFixed(0)} %`,
  ]);
  const { recall, cost, ttft, turns } = result;
  return [
    ...formatTable(['turn', 'tokens sent, memory', 'full history', 'ratio'], rows),
    `fact of turn 3 at turn ${recall.askTurn}: ${recall.inContext ? 'in the context' : 'NOT in the context'} (recalled block: ${recall.viaRecall}, summaries: ${recall.viaSummaries}, history: ${recall.viaHistory})`,
    `memory cost: ${cost.summaryCalls} summary calls (${(cost.summaryCalls / turns).toFixed(2)} per turn, ${count(cost.summaryTokens / turns)} prompt tokens per turn), ` +
      `${cost.textsEmbedded} texts embedded (${(cost.textsEmbedded / turns).toFixed(2)} per turn: ${cost.records.turns} turns, ${cost.records.level1} level-1, ${cost.records.level2} level-2)`,
    `time to first token after ${turns} turns, ${ttft.requests} requests each, ${ttft.thinkMs} ms apart, p50 / p95: memory ${ttft.withMemory.p50.toFixed(1)} / ${ttft.withMemory.p95.toFixed(1)} ms, ` +
      `no memory ${ttft.withoutMemory.p50.toFixed(1)} / ${ttft.withoutMemory.p95.toFixed(1)} ms`,
    `  of which until the upstream request arrived, p50 / p95: memory ${result.untilUpstream.withMemory.p50.toFixed(1)} / ${result.untilUpstream.withMemory.p95.toFixed(1)} ms, ` +
      `no memory ${result.untilUpstream.withoutMemory.p50.toFixed(1)} / ${result.untilUpstream.withoutMemory.p95.toFixed(1)} ms`,
    `memory on the request path (cut, summaries, recall) at ${turns} turns, p50 / p95: ${result.requestPath.p50.toFixed(2)} / ${result.requestPath.p95.toFixed(2)} ms`,
  ];
}

if (require.main === module) {
  runLongConversationBench({
    turns: numberArgument('turns'),
    ttftRequests: numberArgument('ttft'),
    thinkMs: numberArgument('think'),
  })
    .then((result) => {
      for (const line of longConversationTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

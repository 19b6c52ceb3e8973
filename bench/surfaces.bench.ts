import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { io, Socket } from 'socket.io-client';
import { configureLogging } from '../src/observability/logger';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { numberArgument } from './bench-arguments';
import { median, percentile } from './bench-statistics';
import { formatTable } from './bench-table';

/**
 * The two surfaces added beside Socket.IO, against the Socket.IO path, in one run: the service runs alone in a child
 * process (TestAppProcess: SQLite, the demo graph, AUTH_MODE none, no rate limit), whose CPU time is read over each
 * round; this process holds the scripted LLM server (test/support, OpenAI's SSE wire format) and the real clients.
 *
 * - Chat: the same question, a new thread per conversation, a 200-token answer (4-character deltas), through
 *   `ai:chat` (socket.io-client, one socket per concurrent conversation) and through POST /api/ai/ui-chat (the `ai`
 *   package's DefaultChatTransport, its chunks read by readUIMessageStream, as useChat does), at 1 (conversations one
 *   after the other) and at `concurrency` conversations at once. Every answer is checked.
 * - MCP: tools/call of `read_node_detail` and of `search_graph` through the SDK's Client over Streamable HTTP, one
 *   call at a time on one session, against the service's REST path for the same work (POST /api/rag/context for
 *   search_graph; for the read tool, which has no REST twin, GET /api/graphs/:graphKey, the nearest REST read); and
 *   the session's set-up (a new Client's connect: initialize + initialized) then its end (DELETE), one at a time.
 *   The retrieval cache is warm for both (same questions): the figures are the surfaces' own cost.
 *
 * Rounds alternate between the two paths (which goes first swaps each round), after a warm-up of each; per round the
 * p50 / p95 of the latencies, the throughput and the service CPU per conversation or call; the figures are the
 * medians over rounds with their min–max (spread).
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/surfaces.bench.js [--rounds 3] [--concurrency 50] [--sequential 20] [--calls 100]
 */

const GRAPH = 'nba-workflow';
const QUESTION = 'What does the fetch-api node do with errors?';
const ANSWER_TOKENS = 200;
const CHUNK_SIZE = 4;
const ANSWER =
  'The fetch-api node sends its errors to error-handler, which logs them and returns an empty list of players. '
    .repeat(10)
    .slice(0, ANSWER_TOKENS * CHUNK_SIZE);
const SEARCH_QUERIES = ['fetch the NBA players', 'how are errors handled', 'sort the players by stats'];
const CONVERSATION_TIMEOUT_MS = 120_000;

export type ChatPath = 'socket' | 'ui-chat';
export type CallPath = 'mcp' | 'rest';

/** Median over rounds, and the rounds' min and max. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface ChatFigures {
  /** Send → first text delta received, p50 / p95 of each round. */
  firstTextP50Ms: Spread;
  firstTextP95Ms: Spread;
  /** Send → the end of the stream, p50 / p95 of each round. */
  totalP50Ms: Spread;
  totalP95Ms: Spread;
  /** Answer tokens delivered / first send → last end. */
  tokensPerSecond: Spread;
  /** Service process CPU over the round / conversations. */
  cpuMsPerConversation: Spread;
  errors: number;
  errorSamples: string[];
}

export interface ChatRow {
  concurrency: number;
  conversations: number;
  rounds: number;
  socket: ChatFigures;
  uiChat: ChatFigures;
}

export interface CallFigures {
  p50Ms: Spread;
  p95Ms: Spread;
  cpuMsPerCall: Spread;
  errors: number;
}

export interface CallRow {
  /** What is compared: 'read_node_detail' or 'search_graph'. */
  work: string;
  /** The REST request it is compared with. */
  rest: string;
  calls: number;
  rounds: number;
  mcp: CallFigures;
  restFigures: CallFigures;
}

export interface SurfacesResult {
  answerTokens: number;
  chat: ChatRow[];
  mcp: CallRow[];
  /** New MCP session: connect (initialize + initialized) p50 / p95; CPU per session set up and ended. */
  mcpSession: { sessions: number; rounds: number; connectP50Ms: Spread; connectP95Ms: Spread; cpuMsPerSession: Spread };
}

export interface SurfacesOptions {
  rounds?: number;
  concurrency?: number;
  /** Conversations per round at concurrency 1. */
  sequential?: number;
  /** Calls per round and path (MCP and REST); sessions per round are a fifth of it. */
  calls?: number;
}

interface Conversation {
  firstTextMs: number;
  totalMs: number;
  startedAt: number;
  endedAt: number;
  error?: string;
}

const spread = (values: number[]): Spread => ({
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
});

function sortedPercentile(values: number[], p: number): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    p,
  );
}

/** One ai:chat on `socket`: a new thread (no threadId), the tokens checked against the answer. */
function socketConversation(socket: Socket, id: number): Promise<Conversation> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    let firstText = Number.NaN;
    let text = '';
    const finish = (error?: string) => {
      clearTimeout(timer);
      socket.off('ai:token', onToken);
      socket.off('ai:complete', onComplete);
      socket.off('ai:error', onError);
      const endedAt = performance.now();
      resolve({ firstTextMs: firstText - startedAt, totalMs: endedAt - startedAt, startedAt, endedAt, error });
    };
    const onToken = (event: { _id: number; token: string }) => {
      if (event._id !== id) return;
      if (text.length === 0) firstText = performance.now();
      text += event.token;
    };
    const onComplete = (event: { _id: number; fullText: string }) => {
      if (event._id !== id) return;
      finish(text === ANSWER && event.fullText === ANSWER ? undefined : `socket: wrong text (${text.length} chars)`);
    };
    const onError = (event: { _id: number; code?: string; error?: string }) => {
      if (event._id === id) finish(`socket: ai:error ${event.code}: ${event.error}`);
    };
    const timer = setTimeout(() => finish('socket: no terminal event'), CONVERSATION_TIMEOUT_MS);
    socket.on('ai:token', onToken);
    socket.on('ai:complete', onComplete);
    socket.on('ai:error', onError);
    socket.emit('ai:chat', { _id: id, graphKey: GRAPH, message: QUESTION });
  });
}

/** One useChat turn on a new chat id (a new thread): the SDK's transport sends it, readUIMessageStream assembles it. */
async function uiChatConversation(transport: DefaultChatTransport<UIMessage>): Promise<Conversation> {
  const startedAt = performance.now();
  let firstText = Number.NaN;
  try {
    const stream = await transport.sendMessages({
      chatId: randomUUID(),
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: QUESTION }] }],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const timed = stream.pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({
        transform(chunk, controller) {
          if (chunk.type === 'text-delta' && Number.isNaN(firstText)) firstText = performance.now();
          controller.enqueue(chunk);
        },
      }),
    );
    let message: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ stream: timed, terminateOnError: true })) message = snapshot;
    const endedAt = performance.now();
    const text = (message?.parts ?? [])
      .filter((part) => part.type === 'text')
      .map((part) => (part as { text: string }).text)
      .join('');
    return {
      firstTextMs: firstText - startedAt,
      totalMs: endedAt - startedAt,
      startedAt,
      endedAt,
      error: text === ANSWER ? undefined : `ui-chat: wrong text (${text.length} chars)`,
    };
  } catch (error) {
    const endedAt = performance.now();
    return { firstTextMs: Number.NaN, totalMs: endedAt - startedAt, startedAt, endedAt, error: `ui-chat: ${error}` };
  }
}

async function connectSocket(url: string): Promise<Socket> {
  const socket = io(`${url}/ai`, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return socket;
}

interface ChatRound {
  conversations: Conversation[];
  cpuMs: number;
}

function summarizeChat(rounds: ChatRound[]): ChatFigures {
  const errors = rounds.flatMap((round) => round.conversations.flatMap((c) => (c.error ? [c.error] : [])));
  const per = (pick: (ok: Conversation[], round: ChatRound) => number) =>
    spread(
      rounds.map((round) =>
        pick(
          round.conversations.filter((c) => !c.error),
          round,
        ),
      ),
    );
  return {
    firstTextP50Ms: per((ok) =>
      sortedPercentile(
        ok.map((c) => c.firstTextMs),
        50,
      ),
    ),
    firstTextP95Ms: per((ok) =>
      sortedPercentile(
        ok.map((c) => c.firstTextMs),
        95,
      ),
    ),
    totalP50Ms: per((ok) =>
      sortedPercentile(
        ok.map((c) => c.totalMs),
        50,
      ),
    ),
    totalP95Ms: per((ok) =>
      sortedPercentile(
        ok.map((c) => c.totalMs),
        95,
      ),
    ),
    tokensPerSecond: per(
      (ok) =>
        (ok.length * ANSWER_TOKENS) /
        ((Math.max(...ok.map((c) => c.endedAt)) - Math.min(...ok.map((c) => c.startedAt))) / 1000),
    ),
    cpuMsPerConversation: per((_ok, round) => round.cpuMs / round.conversations.length),
    errors: errors.length,
    errorSamples: [...new Set(errors)].slice(0, 3),
  };
}

interface CallRound {
  latencies: number[];
  cpuMs: number;
  errors: number;
}

function summarizeCalls(rounds: CallRound[]): CallFigures {
  return {
    p50Ms: spread(rounds.map((round) => sortedPercentile(round.latencies, 50))),
    p95Ms: spread(rounds.map((round) => sortedPercentile(round.latencies, 95))),
    cpuMsPerCall: spread(rounds.map((round) => round.cpuMs / round.latencies.length)),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
  };
}

/** Alternated rounds of two paths (the first to run swaps each round), after one warm-up round of each. */
async function alternate<Path extends string, R>(
  paths: readonly [Path, Path],
  rounds: number,
  run: (path: Path) => Promise<R>,
): Promise<Record<Path, R[]>> {
  const results = { [paths[0]]: [] as R[], [paths[1]]: [] as R[] } as Record<Path, R[]>;
  for (const name of paths) await run(name);
  for (let index = 0; index < rounds; index++) {
    const order = index % 2 === 0 ? paths : ([paths[1], paths[0]] as const);
    for (const name of order) results[name].push(await run(name));
  }
  return results;
}

export async function runSurfacesBench(options: SurfacesOptions = {}): Promise<SurfacesResult> {
  configureLogging({ level: 'error' });
  const rounds = options.rounds ?? 3;
  const concurrency = options.concurrency ?? 50;
  const sequential = options.sequential ?? 20;
  const calls = options.calls ?? 100;
  const sessions = Math.max(1, Math.round(calls / 5));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'surfaces-bench-'));
  const llm = await ScriptedLlmServer.start();
  const service = await TestAppProcess.start({
    ...llm.providerEnv('openai'),
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'error',
    DATA_DIR: dataDir,
  });
  const sockets: Socket[] = [];
  const mcpClients: Client[] = [];
  const serviceCpu = async () => (await service.stats()).cpuMs;
  try {
    for (let index = 0; index < concurrency; index++) sockets.push(await connectSocket(service.url));
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${service.url}/api/ai/ui-chat`,
      body: { graphKey: GRAPH },
    });
    let nextId = 1;

    const chat: ChatRow[] = [];
    for (const width of [1, concurrency]) {
      const conversations = width === 1 ? sequential : concurrency;
      const chatRound = async (name: ChatPath): Promise<ChatRound> => {
        llm.reset();
        for (let index = 0; index < conversations; index++)
          llm.enqueue({ text: ANSWER, chunkSize: CHUNK_SIZE, usage: { prompt: 1800, completion: ANSWER_TOKENS } });
        const one = (index: number) =>
          name === 'socket' ? socketConversation(sockets[index], nextId++) : uiChatConversation(transport);
        await serviceCpu();
        const results: Conversation[] = [];
        if (width === 1) for (let index = 0; index < conversations; index++) results.push(await one(0));
        else results.push(...(await Promise.all(Array.from({ length: conversations }, (_, index) => one(index)))));
        return { conversations: results, cpuMs: await serviceCpu() };
      };
      const measured = await alternate(['socket', 'ui-chat'] as const, rounds, chatRound);
      chat.push({
        concurrency: width,
        conversations,
        rounds,
        socket: summarizeChat(measured.socket),
        uiChat: summarizeChat(measured['ui-chat']),
      });
    }

    const connectMcp = async () => {
      const client = new Client({ name: 'surfaces-bench', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
      return client;
    };
    const mcp = await connectMcp();
    mcpClients.push(mcp);
    const rest = async (method: 'GET' | 'POST', route: string, body?: object) => {
      const response = await fetch(`${service.url}${route}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
      await response.arrayBuffer();
      return response.ok;
    };
    const work: Array<{
      work: string;
      rest: string;
      mcp: (i: number) => Promise<boolean>;
      viaRest: (i: number) => Promise<boolean>;
    }> = [
      {
        work: 'read_node_detail',
        rest: `GET /api/graphs/${GRAPH}`,
        mcp: async () =>
          !(await mcp.callTool({ name: 'read_node_detail', arguments: { graphKey: GRAPH, nodeKey: 'fetch-api' } }))
            .isError,
        viaRest: () => rest('GET', `/api/graphs/${GRAPH}`),
      },
      {
        work: 'search_graph',
        rest: 'POST /api/rag/context',
        mcp: async (i) =>
          !(
            await mcp.callTool({
              name: 'search_graph',
              arguments: { graphKey: GRAPH, query: SEARCH_QUERIES[i % SEARCH_QUERIES.length], maxNodes: 20 },
            })
          ).isError,
        viaRest: (i) =>
          rest('POST', '/api/rag/context', {
            graphKey: GRAPH,
            query: SEARCH_QUERIES[i % SEARCH_QUERIES.length],
            options: { maxNodes: 20 },
          }),
      },
    ];
    const mcpRows: CallRow[] = [];
    for (const item of work) {
      const callRound = async (name: CallPath): Promise<CallRound> => {
        const latencies: number[] = [];
        let errors = 0;
        await serviceCpu();
        for (let index = 0; index < calls; index++) {
          const started = performance.now();
          const ok = await (name === 'mcp' ? item.mcp(index) : item.viaRest(index)).catch(() => false);
          latencies.push(performance.now() - started);
          if (!ok) errors += 1;
        }
        return { latencies, errors, cpuMs: await serviceCpu() };
      };
      const measured = await alternate(['mcp', 'rest'] as const, rounds, callRound);
      mcpRows.push({
        work: item.work,
        rest: item.rest,
        calls,
        rounds,
        mcp: summarizeCalls(measured.mcp),
        restFigures: summarizeCalls(measured.rest),
      });
    }

    const sessionRound = async (): Promise<CallRound> => {
      const latencies: number[] = [];
      await serviceCpu();
      for (let index = 0; index < sessions; index++) {
        const started = performance.now();
        const client = await connectMcp();
        latencies.push(performance.now() - started);
        await (client.transport as StreamableHTTPClientTransport).terminateSession();
        await client.close();
      }
      return { latencies, errors: 0, cpuMs: await serviceCpu() };
    };
    await sessionRound();
    const sessionRounds: CallRound[] = [];
    for (let index = 0; index < rounds; index++) sessionRounds.push(await sessionRound());
    const sessionFigures = summarizeCalls(sessionRounds);

    return {
      answerTokens: ANSWER_TOKENS,
      chat,
      mcp: mcpRows,
      mcpSession: {
        sessions,
        rounds,
        connectP50Ms: sessionFigures.p50Ms,
        connectP95Ms: sessionFigures.p95Ms,
        cpuMsPerSession: sessionFigures.cpuMsPerCall,
      },
    };
  } finally {
    await Promise.all(mcpClients.map((client) => client.close()));
    for (const socket of sockets) socket.close();
    await service.close();
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** "median (min–max)" */
export function formatSpread(value: Spread, digits = 1): string {
  return `${value.median.toFixed(digits)} (${value.min.toFixed(digits)}–${value.max.toFixed(digits)})`;
}

export function surfacesTable(result: SurfacesResult): string[] {
  const s = formatSpread;
  const lines = formatTable(
    [
      'chat path',
      'concurrency',
      'rounds × conversations',
      'first text p50 / p95 ms',
      'total p50 / p95 ms',
      'tokens/s',
      'service CPU ms/conv',
      'errors',
    ],
    result.chat.flatMap((row) =>
      (
        [
          ['Socket.IO ai:chat', row.socket],
          ['POST /api/ai/ui-chat', row.uiChat],
        ] as const
      ).map(([label, figures]) => [
        label,
        String(row.concurrency),
        `${row.rounds} × ${row.conversations}`,
        `${s(figures.firstTextP50Ms)} / ${s(figures.firstTextP95Ms)}`,
        `${s(figures.totalP50Ms)} / ${s(figures.totalP95Ms)}`,
        s(figures.tokensPerSecond, 0),
        s(figures.cpuMsPerConversation, 2),
        `${figures.errors}${figures.errorSamples.map((sample) => ` (${sample})`).join('')}`,
      ]),
    ),
    [0],
  );
  lines.push('');
  lines.push(
    ...formatTable(
      ['call (one at a time)', 'rounds × calls', 'p50 ms', 'p95 ms', 'service CPU ms/call', 'errors'],
      [
        ...result.mcp.flatMap((row) =>
          (
            [
              [`MCP tools/call ${row.work}`, row.mcp],
              [row.rest, row.restFigures],
            ] as const
          ).map(([label, figures]) => [
            label,
            `${row.rounds} × ${row.calls}`,
            s(figures.p50Ms, 2),
            s(figures.p95Ms, 2),
            s(figures.cpuMsPerCall, 2),
            String(figures.errors),
          ]),
        ),
        [
          'MCP session: connect (initialize + initialized)',
          `${result.mcpSession.rounds} × ${result.mcpSession.sessions}`,
          s(result.mcpSession.connectP50Ms, 2),
          s(result.mcpSession.connectP95Ms, 2),
          `${s(result.mcpSession.cpuMsPerSession, 2)} (set up + DELETE)`,
          '0',
        ],
      ],
      [0],
    ),
  );
  lines.push("median over rounds (min–max of the rounds); a round's latency figure is its p50 or p95");
  return lines;
}

/** The summary's lines of `npm run bench` (run-bench.ts): reported without a budget, but any wrong or missing answer fails. */
export function surfacesFigures(
  result: SurfacesResult,
  notes: string,
): Array<{ section: 'surfaces'; figure: string; value: string; budget: string; pass: boolean | null; notes: string }> {
  const ms = (value: Spread, digits = 1) => `${value.median.toFixed(digits)} ms`;
  const figures: ReturnType<typeof surfacesFigures> = [];
  for (const row of result.chat) {
    const label = row.concurrency === 1 ? '1 at a time' : `${row.concurrency} at once`;
    figures.push({
      section: 'surfaces',
      figure: `ui-chat / Socket.IO, ${label}, ${result.answerTokens}-token answers: first text p50`,
      value: `${ms(row.uiChat.firstTextP50Ms)} / ${ms(row.socket.firstTextP50Ms)}`,
      budget: '—',
      pass: null,
      notes:
        `total p50 ${ms(row.uiChat.totalP50Ms)} / ${ms(row.socket.totalP50Ms)}; ${Math.round(row.uiChat.tokensPerSecond.median)} / ` +
        `${Math.round(row.socket.tokensPerSecond.median)} tokens/s; service CPU ${ms(row.uiChat.cpuMsPerConversation, 2)} / ` +
        `${ms(row.socket.cpuMsPerConversation, 2)} per conversation; median of ${row.rounds} rounds of ${row.conversations}; ${notes}`,
    });
  }
  for (const row of result.mcp) {
    figures.push({
      section: 'surfaces',
      figure: `MCP tools/call ${row.work} / ${row.rest}: p50`,
      value: `${ms(row.mcp.p50Ms, 2)} / ${ms(row.restFigures.p50Ms, 2)}`,
      budget: '—',
      pass: null,
      notes: `p95 ${ms(row.mcp.p95Ms, 2)} / ${ms(row.restFigures.p95Ms, 2)}; service CPU per call ${ms(row.mcp.cpuMsPerCall, 2)} / ${ms(row.restFigures.cpuMsPerCall, 2)}; median of ${row.rounds} rounds of ${row.calls}`,
    });
  }
  const session = result.mcpSession;
  figures.push({
    section: 'surfaces',
    figure: 'MCP session set-up (initialize + initialized): p50 / p95',
    value: `${session.connectP50Ms.median.toFixed(2)} / ${ms(session.connectP95Ms, 2)}`,
    budget: '—',
    pass: null,
    notes: `service CPU ${ms(session.cpuMsPerSession, 2)} per session set up and ended (DELETE); median of ${session.rounds} rounds of ${session.sessions}`,
  });
  const errors = [
    ...result.chat.flatMap((row) => [row.socket, row.uiChat]),
    ...result.mcp.flatMap((row) => [row.mcp, row.restFigures]),
  ];
  const count = errors.reduce((sum, figures) => sum + figures.errors, 0);
  const samples = result.chat.flatMap((row) => [...row.socket.errorSamples, ...row.uiChat.errorSamples]);
  figures.push({
    section: 'surfaces',
    figure: 'surfaces: errors (wrong or missing answer, failed call)',
    value: String(count),
    budget: '0',
    pass: count === 0,
    notes: samples.slice(0, 3).join('; ') || 'every answer checked against the scripted text',
  });
  return figures;
}

if (require.main === module) {
  runSurfacesBench({
    rounds: numberArgument('rounds'),
    concurrency: numberArgument('concurrency'),
    sequential: numberArgument('sequential'),
    calls: numberArgument('calls'),
  })
    .then((result) => {
      console.log(`Surfaces vs Socket.IO: ${ANSWER_TOKENS}-token answers, a new thread each, node ${process.version}`);
      for (const line of surfacesTable(result)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

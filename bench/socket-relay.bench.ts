import OpenAI from 'openai';
import { ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Server } from 'socket.io';
import { io, Socket } from 'socket.io-client';
import { configureLogging } from '../src/observability/logger';
import { ScriptedLlmServer, ScriptedTurn } from '../test/support/scripted-llm-server';
import { startTestApp } from '../test/support/test-app';
import { numberArgument, numberListArgument } from './bench-arguments';
import { median } from './bench-statistics';
import { formatTable } from './bench-table';

/**
 * Relay throughput of the Socket.IO gateway (DESIGN.md budget: at least 90 % of a bare pass-through):
 * upstream tokens (text deltas of 4 characters) per second delivered to socket.io-client receivers,
 * through the real app (gateway → AskQuestion → agent loop → OpenAI adapter → scripted server)
 * against a bare Socket.IO server that streams the same scripted SSE turn with the openai SDK and
 * emits one `ai:token` per delta. Same machine, same upstream, rounds alternated; each round runs
 * `streams` concurrent streams (one per receiver socket, all asking at once). The receivers run in a
 * child process (as real clients would: their event loop is not the server's).
 * Rate = tokens delivered to all receivers / time from the first `ai:chat` emitted to the last
 * terminal event received: what the clients get, the relay's per-request work (thread, retrieval,
 * commits) included. The gateway coalesces tokens (one ai:token per 10 ms or 4 KB); the events per
 * stream are reported beside the rates.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/socket-relay.bench.js [--streams 1,100,1000] [--chunks 10000,200,50] [--rounds 3]
 *   (or node --require ./test/support/swc-register.js bench/socket-relay.bench.ts …)
 */

const CHUNK = 'abcd';

export interface RelayConfig {
  /** Concurrent streams (receiver sockets) per round. */
  streams: number;
  /** Upstream text deltas per stream. */
  chunks: number;
  /** Measured rounds per target (default: the bench's `rounds`). */
  rounds?: number;
  /** One unmeasured round per target first (default true). */
  warmUp?: boolean;
}

export interface RelayTargetResult {
  /** Median over the rounds of the tokens per second delivered to all receivers. */
  tokensPerSecond: number;
  /** Every round's rate. */
  rounds: number[];
  /** ai:token events a receiver got per stream (median over rounds). */
  eventsPerStream: number;
  /**
   * CPU time of this process (the servers under test and the scripted upstream; the receivers run in a child)
   * per 1,000 tokens delivered, median over the rounds: what a round cost, whatever else the machine ran.
   */
  cpuMsPerThousandTokens: number;
}

export interface RelayRow {
  streams: number;
  chunks: number;
  rounds: number;
  relay: RelayTargetResult;
  bare: RelayTargetResult;
  /** relay / bare tokens per second: the figure (budget ≥ 0.90). */
  ratio: number;
}

interface RoundResult {
  tokensPerSecond: number;
  eventsPerStream: number;
  /** Filled in by this process around the round (the receiver process cannot see it). */
  cpuMsPerThousandTokens?: number;
}

interface RoundRequest {
  target: string;
  requestId: number;
  streams: number;
  chunks: number;
}

/** The floor: a Socket.IO namespace that relays the SDK stream as is, one event per delta. */
async function startPassThrough(server: ScriptedLlmServer): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer();
  const ioServer = new Server(http, { transports: ['websocket', 'polling'] });
  // Retries as the service's provider does (a keep-alive connection the server is closing answers ECONNRESET).
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.openAiBaseUrl, maxRetries: 2 });
  ioServer.of('/ai').on('connection', (socket) => {
    socket.on('ai:chat', async (message: { _id: number; message: string }) => {
      let fullText = '';
      try {
        const stream = await client.chat.completions.create({
          model: 'bench',
          stream: true,
          messages: [{ role: 'user', content: message.message }],
        });
        for await (const chunk of stream) {
          const token = chunk.choices[0]?.delta?.content;
          if (!token) continue;
          fullText += token;
          socket.emit('ai:token', { _id: message._id, token });
        }
        socket.emit('ai:complete', { _id: message._id, fullText });
      } catch (error) {
        socket.emit('ai:error', { _id: message._id, error: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: async () => {
      await ioServer.close();
    },
  };
}

async function connect(url: string): Promise<Socket> {
  const socket = io(`${url}/ai`, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return socket;
}

/** Receiver process: `count` sockets per target, then one round per IPC message, its receivers asking at once. */
function runReceivers(): void {
  const pools = new Map<string, Socket[]>();
  process.on('message', (message: { connect?: string[]; count?: number } | RoundRequest) => {
    void (async () => {
      if ('connect' in message && message.connect) {
        for (const url of message.connect) {
          const sockets: Socket[] = [];
          // In batches: a thousand handshakes at once only queue up behind each other.
          while (sockets.length < (message.count ?? 1)) {
            sockets.push(
              ...(await Promise.all(
                Array.from({ length: Math.min(100, (message.count ?? 1) - sockets.length) }, () => connect(url)),
              )),
            );
          }
          pools.set(url, sockets);
        }
        process.send?.({ connected: true });
        return;
      }
      const round = message as RoundRequest;
      try {
        process.send?.({ result: await receive(pools.get(round.target)!.slice(0, round.streams), round) });
      } catch (error) {
        process.send?.({ error: String(error) });
      }
    })();
  });
  process.on('disconnect', () => {
    for (const pool of pools.values()) for (const socket of pool) socket.close();
  });
}

async function receive(receivers: Socket[], round: RoundRequest): Promise<RoundResult> {
  const expectedChars = round.chunks * CHUNK.length;
  let events = 0;
  const started = performance.now();
  const done = receivers.map(
    (socket) =>
      new Promise<number>((resolve, reject) => {
        let chars = 0;
        const onToken = (event: { _id: number; token: string }) => {
          if (event._id !== round.requestId) return;
          events += 1;
          chars += event.token.length;
        };
        const finish = (event: { _id: number | null; fullText?: string; error?: string }) => {
          if (event._id !== round.requestId) return;
          socket.off('ai:token', onToken);
          socket.off('ai:complete', finish);
          socket.off('ai:error', finish);
          if (event.error) reject(new Error(event.error));
          else if (chars !== expectedChars || event.fullText?.length !== expectedChars)
            reject(new Error(`got ${chars} characters`));
          else resolve(performance.now());
        };
        socket.on('ai:token', onToken);
        socket.on('ai:complete', finish);
        socket.on('ai:error', finish);
        socket.emit('ai:chat', { _id: round.requestId, graphKey: 'nba-workflow', message: 'bench' });
      }),
  );
  const ended = Math.max(...(await Promise.all(done)));
  return {
    tokensPerSecond: (round.chunks * receivers.length) / ((ended - started) / 1000),
    eventsPerStream: events / receivers.length,
  };
}

/** Asks the receiver process for one round; the upstream turns are queued here first. */
function round(
  server: ScriptedLlmServer,
  child: ChildProcess,
  request: RoundRequest,
  turn: Omit<ScriptedTurn, 'text' | 'chunkSize'>,
): Promise<RoundResult> {
  const text = CHUNK.repeat(request.chunks);
  for (let i = 0; i < request.streams; i++) server.enqueue({ ...turn, text, chunkSize: CHUNK.length });
  const cpuBefore = process.cpuUsage();
  return new Promise<RoundResult>((resolve, reject) => {
    child.once('message', (message: { result?: RoundResult; error?: string }) =>
      message.result ? resolve(message.result) : reject(new Error(message.error)),
    );
    child.send(request);
  }).then((result) => {
    const cpu = process.cpuUsage(cpuBefore);
    return {
      ...result,
      cpuMsPerThousandTokens: (cpu.user + cpu.system) / 1000 / ((request.streams * request.chunks) / 1000),
    };
  });
}

/**
 * Rounds of every configuration against each target (URLs of `/ai` servers using `server` upstream),
 * alternated, after one warm-up round per target: the median rate of each target per configuration.
 * The receivers live in a child process (this file with --receiver-process).
 */
export async function compareRelayTargets<Name extends string>(
  server: ScriptedLlmServer,
  targets: Record<Name, string>,
  configs: RelayConfig[],
  rounds: number,
  turn: (chunks: number) => Omit<ScriptedTurn, 'text' | 'chunkSize'> = (chunks) => ({
    usage: { prompt: 10, completion: chunks },
  }),
): Promise<Array<{ config: RelayConfig; rounds: number; results: Record<Name, RelayTargetResult> }>> {
  const names = Object.keys(targets) as Name[];
  const child = fork(__filename, ['--receiver-process'], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const rows: Array<{ config: RelayConfig; rounds: number; results: Record<Name, RelayTargetResult> }> = [];
  try {
    await new Promise<void>((resolve) => {
      child.once('message', () => resolve());
      child.send({ connect: Object.values(targets), count: Math.max(...configs.map((config) => config.streams)) });
    });
    let requestId = 0;
    for (const config of configs) {
      const results = Object.fromEntries(names.map((name) => [name, [] as RoundResult[]])) as Record<
        Name,
        RoundResult[]
      >;
      const run = async (name: Name) => {
        const result = await round(
          server,
          child,
          { target: targets[name], requestId: ++requestId, streams: config.streams, chunks: config.chunks },
          turn(config.chunks),
        );
        server.reset();
        return result;
      };
      if (config.warmUp ?? true) for (const name of names) await run(name);
      const measured = config.rounds ?? rounds;
      for (let index = 0; index < measured; index++) {
        for (let offset = 0; offset < names.length; offset++) {
          const name = names[(index + offset) % names.length];
          results[name].push(await run(name));
        }
      }
      const summary = (name: Name): RelayTargetResult => ({
        tokensPerSecond: median(results[name].map((result) => result.tokensPerSecond)),
        rounds: results[name].map((result) => result.tokensPerSecond),
        eventsPerStream: median(results[name].map((result) => result.eventsPerStream)),
        cpuMsPerThousandTokens: median(results[name].map((result) => result.cpuMsPerThousandTokens ?? Number.NaN)),
      });
      rows.push({
        config,
        rounds: measured,
        results: Object.fromEntries(names.map((name) => [name, summary(name)])) as Record<Name, RelayTargetResult>,
      });
    }
  } finally {
    child.disconnect();
  }
  return rows;
}

export async function runSocketRelayBench(
  options: { configs?: RelayConfig[]; rounds?: number } = {},
): Promise<RelayRow[]> {
  configureLogging({ level: 'error', aiDebug: false });
  const configs = options.configs ?? [{ streams: 1, chunks: 10_000 }];
  const rounds = options.rounds ?? 3;
  const server = await ScriptedLlmServer.start();
  const app = await startTestApp({
    ...server.providerEnv('openai'),
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'error',
  });
  const bare = await startPassThrough(server);
  try {
    const rows = await compareRelayTargets(server, { relay: app.url, bare: bare.url }, configs, rounds);
    return rows.map(({ config, rounds: measured, results }) => ({
      streams: config.streams,
      chunks: config.chunks,
      rounds: measured,
      relay: results.relay,
      bare: results.bare,
      ratio: results.relay.tokensPerSecond / results.bare.tokensPerSecond,
    }));
  } finally {
    await bare.close();
    await app.close();
    await server.close();
  }
}

export function socketRelayTable(rows: RelayRow[]): string[] {
  const rate = (value: number) => Math.round(value).toLocaleString('en-US');
  return formatTable(
    [
      'streams',
      'tokens/stream',
      'rounds',
      'relay tokens/s',
      'bare tokens/s',
      'relay / bare',
      'relay events/stream',
      'bare events/stream',
    ],
    rows.map((row) => [
      String(row.streams),
      String(row.chunks),
      String(row.rounds),
      rate(row.relay.tokensPerSecond),
      rate(row.bare.tokensPerSecond),
      row.ratio.toFixed(2),
      row.relay.eventsPerStream.toFixed(0),
      row.bare.eventsPerStream.toFixed(0),
    ]),
    [],
  );
}

if (process.argv.includes('--receiver-process')) {
  runReceivers();
} else if (require.main === module) {
  const rounds = numberArgument('rounds') ?? 3;
  const chunks = numberListArgument('chunks') ?? [10_000];
  const configs = (numberListArgument('streams') ?? [1]).map((streams, index) => ({
    streams,
    chunks: chunks[Math.min(index, chunks.length - 1)],
  }));
  runSocketRelayBench({ configs, rounds })
    .then((rows) => {
      console.log(
        `Socket relay: ${CHUNK.length}-character tokens, median of ${rounds} alternated rounds, node ${process.version}`,
      );
      for (const line of socketRelayTable(rows)) console.log(line);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}

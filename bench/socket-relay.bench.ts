import OpenAI from 'openai';
import { ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Server } from 'socket.io';
import { io, Socket } from 'socket.io-client';
import { configureLogging } from '../src/observability/logger';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { startTestApp } from '../test/support/test-app';

/**
 * Relay throughput of the Socket.IO gateway (DESIGN.md budget: at least 90 % of a bare pass-through):
 * upstream text chunks per second delivered to socket.io-client receivers, through the real app
 * (gateway → ChatService → agent loop → OpenAI adapter → scripted server) against a bare Socket.IO
 * server that streams the same scripted SSE turn with the openai SDK and emits one `ai:token` per
 * delta. Same machine, same upstream, rounds alternated; `--receivers` concurrent streams per round.
 * The receivers run in a child process (as real clients would: their event loop is not the server's).
 * Rate = chunks delivered to all receivers / time from the first `ai:token` to the last terminal
 * event (the relay's retrieval before the upstream call is outside the window; `e2e` includes it).
 *
 *   node --require ./test/support/swc-register.js bench/socket-relay.bench.ts [--chunks 20000] [--rounds 5] [--receivers 1]
 *   (or npx tsc -p tsconfig.build.json && node dist/bench/socket-relay.bench.js …)
 */

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const CHUNKS = argument('chunks', 20_000);
const ROUNDS = argument('rounds', 5);
const RECEIVERS = argument('receivers', 1);
const CHUNK_SIZE = 4;
const TEXT = 'abcd'.repeat(CHUNKS);

type Receiver = Socket;

interface RoundResult {
  /** Chunks per second between the first ai:token and the last terminal event. */
  stream: number;
  /** Chunks per second from the first emit to the last terminal event. */
  e2e: number;
}

/** The floor: a Socket.IO namespace that relays the SDK stream as is, one event per delta. */
async function startPassThrough(server: ScriptedLlmServer): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer();
  const ioServer = new Server(http, { transports: ['websocket', 'polling'] });
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.openAiBaseUrl, maxRetries: 0 });
  ioServer.of('/ai').on('connection', (socket) => {
    socket.on('ai:chat', async (message: { _id: number; message: string }) => {
      let fullText = '';
      const stream = await client.chat.completions.create({ model: 'bench', stream: true, messages: [{ role: 'user', content: message.message }] });
      for await (const chunk of stream) {
        const token = chunk.choices[0]?.delta?.content;
        if (!token) continue;
        fullText += token;
        socket.emit('ai:token', { _id: message._id, token });
      }
      socket.emit('ai:complete', { _id: message._id, fullText });
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

async function connect(url: string): Promise<Receiver> {
  const socket = io(`${url}/ai`, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return socket;
}

interface RoundRequest {
  target: string;
  requestId: number;
}

/** Receiver process: one round per IPC message, every receiver of the target asks at once. */
function runReceivers(): void {
  const pools = new Map<string, Receiver[]>();
  process.on('message', (message: { connect?: string[] } | RoundRequest) => {
    void (async () => {
      if ('connect' in message && message.connect) {
        for (const url of message.connect) pools.set(url, await Promise.all(Array.from({ length: RECEIVERS }, () => connect(url))));
        process.send?.({ connected: true });
        return;
      }
      const { target, requestId } = message as RoundRequest;
      try {
        process.send?.({ result: await receive(pools.get(target)!, requestId) });
      } catch (error) {
        process.send?.({ error: String(error) });
      }
    })();
  });
  process.on('disconnect', () => {
    for (const pool of pools.values()) for (const socket of pool) socket.close();
  });
}

async function receive(receivers: Receiver[], requestId: number): Promise<RoundResult> {
  let firstToken = Number.POSITIVE_INFINITY;
  const started = performance.now();
  const done = receivers.map(
    (socket) =>
      new Promise<number>((resolve, reject) => {
        let chars = 0;
        const onToken = (event: { _id: number; token: string }) => {
          if (event._id !== requestId) return;
          if (chars === 0) firstToken = Math.min(firstToken, performance.now());
          chars += event.token.length;
        };
        const finish = (event: { _id: number | null; fullText?: string; error?: string }) => {
          if (event._id !== requestId) return;
          socket.off('ai:token', onToken);
          socket.off('ai:complete', finish);
          socket.off('ai:error', finish);
          if (event.error) reject(new Error(event.error));
          else if (chars !== TEXT.length || event.fullText?.length !== TEXT.length) reject(new Error(`got ${chars} characters`));
          else resolve(performance.now());
        };
        socket.on('ai:token', onToken);
        socket.on('ai:complete', finish);
        socket.on('ai:error', finish);
        socket.emit('ai:chat', { _id: requestId, graphKey: 'nba-workflow', message: 'bench' });
      }),
  );
  const ended = Math.max(...(await Promise.all(done)));
  const chunks = CHUNKS * receivers.length;
  return { stream: chunks / ((ended - firstToken) / 1000), e2e: chunks / ((ended - started) / 1000) };
}

/** Asks the receiver process for one round; the upstream turns are queued here first. */
function round(server: ScriptedLlmServer, child: ChildProcess, target: string, requestId: number): Promise<RoundResult> {
  for (let i = 0; i < RECEIVERS; i++) server.enqueue({ text: TEXT, chunkSize: CHUNK_SIZE, usage: { prompt: 10, completion: CHUNKS } });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { result?: RoundResult; error?: string }) => (message.result ? resolve(message.result) : reject(new Error(message.error))));
    child.send({ target, requestId } satisfies RoundRequest);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  configureLogging({ level: 'error', aiDebug: false });
  const server = await ScriptedLlmServer.start();
  const app = await startTestApp({ ...server.providerEnv('openai'), EMBEDDING_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' });
  const bare = await startPassThrough(server);
  const targets = { relay: app.url, bare: bare.url };
  const child = fork(__filename, [...process.argv.slice(2), '--receiver-process'], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const names = Object.keys(targets) as Array<keyof typeof targets>;
  const results: Record<keyof typeof targets, RoundResult[]> = { relay: [], bare: [] };
  try {
    await new Promise<void>((resolve) => {
      child.once('message', () => resolve());
      child.send({ connect: Object.values(targets) });
    });
    let requestId = 0;
    for (const name of names) await round(server, child, targets[name], ++requestId); // warm-up
    for (let index = 0; index < ROUNDS; index++) {
      for (let offset = 0; offset < names.length; offset++) {
        const name = names[(index + offset) % names.length];
        results[name].push(await round(server, child, targets[name], ++requestId));
      }
    }
    const format = (value: number) => Math.round(value).toLocaleString('en-US').padStart(12);
    const relay = median(results.relay.map((result) => result.stream));
    const passThrough = median(results.bare.map((result) => result.stream));
    console.log(`Socket relay: ${CHUNKS} chunks of ${CHUNK_SIZE} characters per stream, ${RECEIVERS} receiver(s), median of ${ROUNDS} alternated rounds, node ${process.version}`);
    console.log('                  stream chunks/s   e2e chunks/s');
    console.log(`gateway relay     ${format(relay)}   ${format(median(results.relay.map((result) => result.e2e)))}`);
    console.log(`bare pass-through ${format(passThrough)}   ${format(median(results.bare.map((result) => result.e2e)))}`);
    console.log(`relay / bare      ${(relay / passThrough).toFixed(2).padStart(12)}`);
  } finally {
    child.disconnect();
    await bare.close();
    await app.close();
    await server.close();
  }
}

if (process.argv.includes('--receiver-process')) {
  runReceivers();
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

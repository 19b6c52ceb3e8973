import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { io, Socket } from 'socket.io-client';
import { configureLogging } from '../src/observability/logger';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { startTestApp, TestApp } from '../test/support/test-app';
import { TestRedisServer } from '../test/support/test-redis.server';
import { argumentValue, numberArgument } from './bench-arguments';
import { median, percentile } from './bench-statistics';
import { formatTable } from './bench-table';
import { compareRelayTargets, RelayConfig, RelayTargetResult } from './socket-relay.bench';

/**
 * What several instances on Redis cost: the same app with and without
 * REDIS_URL (Socket.IO Redis adapter + request event log in Redis Streams) in one run, alternated.
 *  - relay: tokens per second delivered to socket.io-client receivers in a child process (socket-relay
 *    bench's method), unpaced upstream streams (the fastest the relay can go);
 *  - paced: upstream pieces 10 ms apart, as a model streams: one ai:token (one logged event) per piece;
 *    the service's CPU time per 1,000 events with and without Redis (the cost of logging them);
 *  - rejoin: ai:rejoin of a finished request on ANOTHER instance (Redis) and on the same one (memory):
 *    time to its first replayed event and to its terminal event;
 *  - memory: Redis's memory per active stream (MEMORY USAGE of each request's Stream, and the growth of
 *    INFO used_memory), with streams of a known number of events.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/scale-out.bench.js [--rounds 3] [--rejoins 100] [--only relay,paced,rejoin,memory]
 */

const PACED_STREAMS = 100;
const PACED_PIECES = 100;
const PACE_MS = 10;
const MEMORY_STREAMS = 100;

export interface ScaleOutRelayRow {
  streams: number;
  chunks: number;
  rounds: number;
  redis: RelayTargetResult;
  plain: RelayTargetResult;
  /**
   * Median over the rounds of redis / plain tokens per second, each round of one paired with the same round of
   * the other (run one after the other, so a change of the machine's load hits both alike). Target ≥ 0.90 at 100 streams.
   */
  ratio: number;
  /** plain / redis CPU per token delivered: the throughput ratio a CPU-bound relay would have (1: no cost). */
  cpuRatio: number;
}

export interface ScaleOutResult {
  relay: ScaleOutRelayRow[];
  paced: {
    streams: number;
    eventsPerStream: { redis: number; plain: number };
    /** Service CPU (this process, which also runs the scripted server) per 1,000 events, median of rounds. */
    cpuMsPerThousandEvents: { redis: number; plain: number };
  };
  rejoin: {
    rejoins: number;
    eventsReplayed: number;
    redis: { firstEventMs: { p50: number; p95: number }; terminalMs: { p50: number; p95: number } };
    memory: { firstEventMs: { p50: number; p95: number }; terminalMs: { p50: number; p95: number } };
  };
  memory: {
    streams: number;
    eventsPerStream: number;
    bytesPerStream: number;
    bytesPerEvent: number;
    usedMemoryGrowthPerStream: number;
  };
}

function connect(url: string): Promise<Socket> {
  const socket = io(`${url}/ai`, { transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** Sends ai:chat and resolves with every event of the request once it ended. */
function chat(
  socket: Socket,
  id: number,
  message = 'bench',
): Promise<Array<{ event: string; payload: { seq: number; threadId?: string } }>> {
  return new Promise((resolve, reject) => {
    const events: Array<{ event: string; payload: { seq: number; threadId?: string } }> = [];
    const listener = (event: string, payload: { _id: number; seq: number; error?: string }) => {
      if (payload._id !== id) return;
      events.push({ event, payload });
      if (event === 'ai:error') reject(new Error(payload.error));
      if (event === 'ai:complete' || event === 'ai:error') {
        socket.offAny(listener);
        resolve(events);
      }
    };
    socket.onAny(listener);
    socket.emit('ai:chat', { _id: id, graphKey: 'nba-workflow', message });
  });
}

/** Time from ai:rejoin to the first event and to the terminal event. */
function rejoin(
  socket: Socket,
  id: number,
  threadId: string,
): Promise<{ firstEventMs: number; terminalMs: number; events: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first = 0;
    let events = 0;
    const listener = (event: string, payload: { _id: number; error?: string }) => {
      if (payload._id !== id) return;
      events += 1;
      if (events === 1) first = performance.now() - started;
      if (event === 'ai:error') reject(new Error(payload.error));
      if (event === 'ai:complete') {
        socket.offAny(listener);
        resolve({ firstEventMs: first, terminalMs: performance.now() - started, events });
      }
    };
    socket.onAny(listener);
    socket.emit('ai:rejoin', { _id: id, threadId, lastSeq: 0 });
  });
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
};

async function pacedRounds(llm: ScriptedLlmServer, apps: { redis: TestApp; plain: TestApp }, rounds: number) {
  const sockets = {
    redis: await Promise.all(Array.from({ length: PACED_STREAMS }, () => connect(apps.redis.url))),
    plain: await Promise.all(Array.from({ length: PACED_STREAMS }, () => connect(apps.plain.url))),
  };
  const cpu: Record<'redis' | 'plain', number[]> = { redis: [], plain: [] };
  const events: Record<'redis' | 'plain', number[]> = { redis: [], plain: [] };
  const text = 'abcd'.repeat(PACED_PIECES);
  let id = 0;
  for (let index = 0; index <= rounds; index++) {
    for (const name of index % 2 === 0 ? (['redis', 'plain'] as const) : (['plain', 'redis'] as const)) {
      for (let stream = 0; stream < PACED_STREAMS; stream++) llm.enqueue({ text, chunkSize: 4, delayMs: PACE_MS });
      const start = process.cpuUsage();
      id += 1;
      const results = await Promise.all(sockets[name].map((socket) => chat(socket, id)));
      const used = process.cpuUsage(start);
      llm.reset();
      const total = results.reduce((sum, each) => sum + each.length, 0);
      if (index === 0) continue; // warm-up
      cpu[name].push(((used.user + used.system) / 1000 / total) * 1000);
      events[name].push(total / PACED_STREAMS);
    }
  }
  for (const socket of [...sockets.redis, ...sockets.plain]) socket.close();
  return {
    streams: PACED_STREAMS,
    eventsPerStream: { redis: median(events.redis), plain: median(events.plain) },
    cpuMsPerThousandEvents: { redis: median(cpu.redis), plain: median(cpu.plain) },
  };
}

async function rejoinLatency(
  llm: ScriptedLlmServer,
  apps: { a: TestApp; b: TestApp; plain: TestApp },
  rejoins: number,
) {
  const measure = async (runOn: TestApp, rejoinOn: TestApp) => {
    const runner = await connect(runOn.url);
    const rejoiner = await connect(rejoinOn.url);
    const first: number[] = [];
    const terminal: number[] = [];
    let replayed = 0;
    for (let index = 0; index < rejoins + 5; index++) {
      llm.enqueue({ text: 'abcd'.repeat(100), chunkSize: 4, delayMs: 1 });
      const events = await chat(runner, index + 1);
      const threadId = events[0].payload.threadId as string;
      const timing = await rejoin(rejoiner, index + 1, threadId);
      llm.reset();
      if (index < 5) continue; // warm-up
      first.push(timing.firstEventMs);
      terminal.push(timing.terminalMs);
      replayed = timing.events;
    }
    runner.close();
    rejoiner.close();
    return { firstEventMs: summary(first), terminalMs: summary(terminal), replayed };
  };
  const redis = await measure(apps.a, apps.b);
  const memory = await measure(apps.plain, apps.plain);
  return {
    rejoins,
    eventsReplayed: redis.replayed,
    redis: { firstEventMs: redis.firstEventMs, terminalMs: redis.terminalMs },
    memory: { firstEventMs: memory.firstEventMs, terminalMs: memory.terminalMs },
  };
}

async function streamMemory(llm: ScriptedLlmServer, app: TestApp, redis: TestRedisServer) {
  const usedBefore = Number(/used_memory:(\d+)/.exec(redis.cli('INFO', 'memory'))?.[1]);
  const sockets = await Promise.all(Array.from({ length: MEMORY_STREAMS }, () => connect(app.url)));
  const pieces = 200;
  for (let index = 0; index < MEMORY_STREAMS; index++)
    llm.enqueue({ text: 'abcd'.repeat(pieces + 10), chunkSize: 4, delayMs: PACE_MS, hangAfterChunks: pieces });
  const counts = sockets.map(() => 0);
  sockets.forEach((socket, index) => socket.on('ai:token', () => (counts[index] += 1)));
  sockets.forEach((socket) => socket.emit('ai:chat', { _id: 1, graphKey: 'nba-workflow', message: 'bench' }));
  // Every stream is active and has sent its pieces (then its upstream hangs): measure once they are all logged.
  const deadline = Date.now() + 60_000;
  while (llm.requests.filter((entry) => entry.chunksSent >= pieces).length < MEMORY_STREAMS && Date.now() < deadline)
    await sleep(50);
  await sleep(500);
  const keys = redis.cli('--scan', '--pattern', 'graph-ai:run:*').split('\n').filter(Boolean);
  const sizes = keys.map((key) => Number(redis.cli('MEMORY', 'USAGE', key, 'SAMPLES', '0')));
  const lengths = keys.map((key) => Number(redis.cli('XLEN', key)));
  const usedDuring = Number(/used_memory:(\d+)/.exec(redis.cli('INFO', 'memory'))?.[1]);
  sockets.forEach((socket) => socket.emit('ai:interrupt', { _id: 1 }));
  await sleep(500);
  for (const socket of sockets) socket.close();
  llm.reset();
  const bytesPerStream = median(sizes);
  const eventsPerStream = median(lengths);
  return {
    streams: keys.length,
    eventsPerStream,
    bytesPerStream,
    bytesPerEvent: bytesPerStream / eventsPerStream,
    usedMemoryGrowthPerStream: (usedDuring - usedBefore) / keys.length,
  };
}

export type ScaleOutPart = 'relay' | 'paced' | 'rejoin' | 'memory';

export async function runScaleOutBench(
  options: { rounds?: number; rejoins?: number; only?: ScaleOutPart[] } = {},
): Promise<Partial<ScaleOutResult>> {
  const parts = new Set<ScaleOutPart>(options.only ?? ['relay', 'paced', 'rejoin', 'memory']);
  configureLogging({ level: 'error', aiDebug: false });
  const rounds = options.rounds ?? 3;
  const llm = await ScriptedLlmServer.start();
  const redis = await TestRedisServer.start();
  const shared = mkdtempSync(path.join(tmpdir(), 'bench-scale-out-'));
  const base = {
    ...llm.providerEnv('openai'),
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'error',
  };
  const plain = await startTestApp(base);
  const withRedis = await startTestApp({ ...base, REDIS_URL: redis.url, DATA_DIR: shared });
  const result: Partial<ScaleOutResult> = {};
  try {
    if (parts.has('relay')) {
      const configs: RelayConfig[] = [
        { streams: 1, chunks: 10_000 },
        { streams: 100, chunks: 500 },
      ];
      const relayRows = await compareRelayTargets(llm, { redis: withRedis.url, plain: plain.url }, configs, rounds);
      result.relay = relayRows.map(({ config, rounds: measured, results }) => ({
        streams: config.streams,
        chunks: config.chunks,
        rounds: measured,
        redis: results.redis,
        plain: results.plain,
        ratio: median(results.redis.rounds.map((rate, index) => rate / results.plain.rounds[index])),
        cpuRatio: results.plain.cpuMsPerThousandTokens / results.redis.cpuMsPerThousandTokens,
      }));
    }
    if (parts.has('paced')) result.paced = await pacedRounds(llm, { redis: withRedis, plain }, rounds);
    if (parts.has('rejoin')) {
      const second = await startTestApp({ ...base, REDIS_URL: redis.url, DATA_DIR: shared });
      try {
        result.rejoin = await rejoinLatency(llm, { a: withRedis, b: second, plain }, options.rejoins ?? 100);
      } finally {
        await second.close({ keepData: true });
      }
    }
    if (parts.has('memory')) {
      // Only the streams of this part are in Redis.
      redis.cli('FLUSHALL');
      result.memory = await streamMemory(llm, withRedis, redis);
    }
    return result;
  } finally {
    await withRedis.close({ keepData: true });
    await plain.close();
    await redis.stop();
    await llm.close();
    rmSync(shared, { recursive: true, force: true });
  }
}

export function scaleOutTable(result: Partial<ScaleOutResult>): string[] {
  const rate = (value: number) => Math.round(value).toLocaleString('en-US');
  const ms = (value: { p50: number; p95: number }) => `${value.p50.toFixed(2)} / ${value.p95.toFixed(2)} ms`;
  return [
    ...(result.relay
      ? formatTable(
          [
            'streams',
            'tokens/stream',
            'rounds',
            'Redis tokens/s',
            'no Redis tokens/s',
            'Redis / no Redis (paired rounds)',
            'CPU ms / 1,000 tokens, Redis / no Redis',
            'events/stream',
          ],
          result.relay.map((row) => [
            String(row.streams),
            String(row.chunks),
            String(row.rounds),
            rate(row.redis.tokensPerSecond),
            rate(row.plain.tokensPerSecond),
            row.ratio.toFixed(2),
            `${row.redis.cpuMsPerThousandTokens.toFixed(1)} / ${row.plain.cpuMsPerThousandTokens.toFixed(1)} (${row.cpuRatio.toFixed(2)})`,
            row.redis.eventsPerStream.toFixed(0),
          ]),
          [],
        )
      : []),
    ...(result.paced
      ? [
          `paced (${result.paced.streams} streams, a piece every ${PACE_MS} ms): events/stream ${result.paced.eventsPerStream.redis.toFixed(0)} vs ${result.paced.eventsPerStream.plain.toFixed(0)}; ` +
            `CPU per 1,000 events ${result.paced.cpuMsPerThousandEvents.redis.toFixed(1)} ms with Redis vs ${result.paced.cpuMsPerThousandEvents.plain.toFixed(1)} ms without`,
        ]
      : []),
    ...(result.rejoin
      ? [
          `rejoin of a finished request (${result.rejoin.eventsReplayed} events, ${result.rejoin.rejoins} times): first event / terminal p50 / p95: ` +
            `other instance (Redis) ${ms(result.rejoin.redis.firstEventMs)}, ${ms(result.rejoin.redis.terminalMs)}; same instance (memory) ${ms(result.rejoin.memory.firstEventMs)}, ${ms(result.rejoin.memory.terminalMs)}`,
        ]
      : []),
    ...(result.memory
      ? [
          `Redis memory per active stream: ${rate(result.memory.bytesPerStream)} bytes for ${result.memory.eventsPerStream} events (${result.memory.bytesPerEvent.toFixed(0)} bytes/event; ` +
            `used_memory grew ${rate(result.memory.usedMemoryGrowthPerStream)} bytes per stream, ${result.memory.streams} streams)`,
        ]
      : []),
  ];
}

if (require.main === module) {
  const only = argumentValue('only')?.split(',') as ScaleOutPart[] | undefined;
  runScaleOutBench({ rounds: numberArgument('rounds') ?? 3, rejoins: numberArgument('rejoins') ?? 100, only })
    .then((result) => {
      for (const line of scaleOutTable(result)) console.log(line);
      console.log(JSON.stringify(result));
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}

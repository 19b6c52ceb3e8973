import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { AiSocketClient, ReceivedEvent } from '../test/support/ai-socket.client';
import { freePort } from '../test/support/free-port';
import { editorToken, longAnswer, seqOf, textOf } from '../test/support/request-events';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { TestRedisServer } from '../test/support/test-redis.server';

const GRAPH = 'nba-workflow';
const SECRET = 'redis-faults-secret-of-32-chars-at-least';
const SYNC_TOKEN = 'redis-faults-sync-token-0123456789';
const INSTANCES = 3;
/** Each piece of an answer is 4 characters, one every PIECE_MS: a stream lasts pieces × PIECE_MS. */
const PIECE_MS = 20;
/** How long after a fault's recovery the overlay replicas are compared with Redis. */
const SETTLE_MS = 5_000;
const OVERLAY_HASH = `graph-ai:overlay:default:${GRAPH}`;

/**
 * The Redis faults, each aimed at streams in flight:
 *  - `full`: `maxmemory` below what Redis holds, `noeviction`: every write refused with OOM, reads answered;
 *  - `readonly`: `REPLICAOF` a primary that does not exist: writes refused with READONLY (a failover's old primary);
 *  - `idle-timeout`: `CONFIG SET timeout 1`: the server closes every connection idle for a second;
 *  - `client-kill`: `CLIENT KILL` of each of the instances' connections in turn;
 *  - `restart`: SIGKILL and a restart without persistence: everything Redis held is gone;
 *  - `sigstop`: SIGSTOP of the server (5 s by default): connections open, nothing answered.
 */
export const REDIS_FAULTS = ['full', 'readonly', 'idle-timeout', 'client-kill', 'restart', 'sigstop'] as const;
export type RedisFaultName = (typeof REDIS_FAULTS)[number];

/** Faults that make Redis refuse or lose writes: a request's log then stays on its instance (not rejoinable elsewhere). */
export const WRITE_LOSING_FAULTS: ReadonlySet<RedisFaultName> = new Set(['full', 'readonly', 'restart']);

const DEFAULT_HOLD_MS: Record<RedisFaultName, number> = {
  full: 2_000,
  readonly: 2_000,
  'idle-timeout': 4_000,
  'client-kill': 150, // between two kills
  restart: 1_500,
  sigstop: 5_000,
};

export interface RedisFaultsOptions {
  faults?: readonly RedisFaultName[];
  /** How long each fault lasts (client-kill: the pause between two kills). */
  holdMs?: Partial<Record<RedisFaultName, number>>;
  /** Unsaved overlay changes posted to the instances, one after the other, while each fault lasts. */
  overlayChanges?: number;
}

/** How one stream of a fault round is followed: by its own socket, or by a rejoin after a disconnect mid-fault. */
export type StreamRole = 'watched' | 'rejoined-here' | 'rejoined-elsewhere';

export interface RedisFaultOutcome {
  fault: RedisFaultName;
  holdMs: number;
  streams: number;
  /** Streams mid-stream (a token received, no terminal event yet) when the fault began: where it was aimed. */
  streamingAtFault: number;
  /** Separate injections of the fault (client-kill: one per connection killed; otherwise 1). */
  injections: number;
  /** Injections made while at least one stream was mid-stream. */
  injectionsWhileStreaming: number;
  /** Connections the server closed or killed during the fault (graph-ai:* connections gone afterwards). */
  connectionsClosed: number;
  /** Streams that did not end with the whole answer (`ai:error`, `aborted`, a wrong text, no terminal event). */
  aborted: number;
  rejoins: Record<Exclude<StreamRole, 'watched'>, number>;
  /** Across rejoins that replayed: events missing from what the client ended up with, and events it got twice. */
  eventsLost: number;
  eventsDuplicated: number;
  /** Rejoins answered with an `ai:error` (the answer then read from the thread, as the client package does). */
  rejoinsRefused: Record<Exclude<StreamRole, 'watched'>, number>;
  refusalCodes: string[];
  /** Threads holding the whole answer once every stream ended. */
  answersStored: number;
  overlay: {
    posted: number;
    /** Answered 202. */
    accepted: number;
    /** Instances whose replica differs from Redis's overlay SETTLE_MS after the recovery. */
    divergences: number;
    /** Changes of this round still in the shared overlay after the recovery (Redis's state wins when it is back). */
    kept: number;
  };
  problems: string[];
}

export interface RedisFaultsResult {
  outcomes: RedisFaultOutcome[];
  durationMs: number;
}

interface Stream {
  index: number;
  role: StreamRole;
  instance: number;
  client: AiSocketClient;
  user: string;
  threadId?: string;
  /** What the first socket received before it closed (rejoiners). */
  seen: ReceivedEvent[];
  /** The rejoin's socket and what it received under its `_id`. */
  rejoin?: AiSocketClient;
}

const token = (user: string) => editorToken(SECRET, user);

/**
 * Three service instances on one SQLite file and one real redis-server, streams running on each; each fault
 * of REDIS_FAULTS is injected while they stream, then Redis recovers. Per fault: the streams aborted, the
 * events lost or duplicated by rejoins (on the same instance, and on another), the rejoins refused with an
 * explicit error, the threads holding the whole answer, and the overlay replicas that still differ from
 * Redis 5 s after the recovery. Automations are left out: they are scheduled through the store and Redis
 * plays no part in them.
 */
export async function runRedisFaultsScenario(options: RedisFaultsOptions = {}): Promise<RedisFaultsResult> {
  const started = Date.now();
  const faults = options.faults ?? REDIS_FAULTS;
  const overlayChanges = options.overlayChanges ?? 8;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-redis-'));
  const [llm, redis] = await Promise.all([ScriptedLlmServer.start(), TestRedisServer.start()]);
  const env = {
    ...llm.providerEnv('openai'),
    DATA_DIR: dataDir,
    REDIS_URL: redis.url,
    AUTH_MODE: 'jwt',
    JWT_SECRET: SECRET,
    SYNC_TOKEN,
    EMBEDDING_PROVIDER: 'none',
    MEMORY_ENABLED: 'false',
    RATE_LIMIT_PER_MINUTE: '0',
    AI_DISCONNECT_POLICY: 'continue',
    AI_REJOIN_GRACE_MS: '60000',
    LOG_LEVEL: 'error',
  };
  const instances: TestAppProcess[] = [];
  const outcomes: RedisFaultOutcome[] = [];
  try {
    // The first creates the SQLite file and seeds the demo graph; then the others join.
    instances.push(await TestAppProcess.start(env, { timeoutMs: 60_000 }));
    for (let index = 1; index < INSTANCES; index++)
      instances.push(await TestAppProcess.start(env, { timeoutMs: 60_000 }));
    await waitForRedisUp(instances);
    for (const fault of faults) {
      const holdMs = options.holdMs?.[fault] ?? DEFAULT_HOLD_MS[fault];
      outcomes.push(await runFault(fault, holdMs, overlayChanges, { llm, redis, instances }));
      resetRedis(redis);
      await waitForRedisUp(instances);
    }
  } finally {
    await Promise.all(instances.map((instance) => instance.close()));
    await Promise.all([llm.close(), redis.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { outcomes, durationMs: Date.now() - started };
}

interface Bed {
  llm: ScriptedLlmServer;
  redis: TestRedisServer;
  instances: TestAppProcess[];
}

async function runFault(
  fault: RedisFaultName,
  holdMs: number,
  overlayChanges: number,
  bed: Bed,
): Promise<RedisFaultOutcome> {
  const { llm, redis, instances } = bed;
  const problems: string[] = [];
  const faultMs = fault === 'client-kill' ? holdMs * 6 * INSTANCES : holdMs;
  const answer = longAnswer(Math.ceil((faultMs + 5_000) / PIECE_MS), fault[0]);
  const roles: StreamRole[] = ['watched', 'rejoined-here', 'rejoined-elsewhere'];
  llm.reset();
  llm.enqueue(
    ...Array.from({ length: roles.length * INSTANCES }, () => ({ text: answer, chunkSize: 4, delayMs: PIECE_MS })),
  );

  const streams: Stream[] = [];
  for (const role of roles) {
    for (let instance = 0; instance < INSTANCES; instance++) {
      const index = streams.length;
      const user = `${fault}-${index}`;
      const client = await AiSocketClient.connect(instances[instance].url, { token: token(user) });
      streams.push({ index, role, instance, client, user, seen: [] });
    }
  }
  for (const stream of streams)
    stream.client.socket.emit('ai:chat', { _id: 1, graphKey: GRAPH, message: `Walk me through it (${stream.user})` });
  // Aimed: the fault starts once every stream is streaming.
  await Promise.all(
    streams.map((stream) =>
      stream.client.waitUntil(() => textOf(stream.client.eventsOf(1)).length >= 40, 20_000, 'the first pieces'),
    ),
  );
  for (const stream of streams)
    stream.threadId = (stream.client.eventsOf(1)[0].payload as { threadId: string }).threadId;
  const streaming = () => streams.filter((stream) => isStreaming(stream)).length;
  const before = graphAiConnectionIds(redis);

  const streamingAtFault = streaming();
  let injections = 1;
  let injectionsWhileStreaming = streamingAtFault > 0 ? 1 : 0;
  const overlayPosts: Array<Promise<number>> = [];
  const postOverlay = (count: number, spreadMs: number) =>
    (async () => {
      for (let change = 0; change < count; change++) {
        overlayPosts.push(postOverlayChange(instances[change % INSTANCES].url, `fault-${fault}-${change}`));
        await sleep(spreadMs / count);
      }
    })();
  const rejoinAll = () =>
    Promise.all(streams.filter((stream) => stream.role !== 'watched').map((stream) => rejoin(stream, instances)));

  let rejoined: Promise<unknown> = Promise.resolve();
  switch (fault) {
    case 'full':
      redis.cli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
      redis.cli('CONFIG', 'SET', 'maxmemory', '1');
      rejoined = during(holdMs, rejoinAll, postOverlay(overlayChanges, holdMs / 2));
      await sleep(holdMs);
      redis.cli('CONFIG', 'SET', 'maxmemory', '0');
      break;
    case 'readonly':
      redis.cli('REPLICAOF', '127.0.0.1', String(await freePort()));
      rejoined = during(holdMs, rejoinAll, postOverlay(overlayChanges, holdMs / 2));
      await sleep(holdMs);
      redis.cli('REPLICAOF', 'NO', 'ONE');
      break;
    case 'idle-timeout':
      redis.cli('CONFIG', 'SET', 'timeout', '1');
      rejoined = during(holdMs, rejoinAll, postOverlay(overlayChanges, holdMs / 2));
      await sleep(holdMs);
      redis.cli('CONFIG', 'SET', 'timeout', '0');
      break;
    case 'client-kill': {
      const ids = [...before];
      injections = 0;
      injectionsWhileStreaming = 0;
      const posting = postOverlay(overlayChanges, ids.length * holdMs);
      for (const [position, id] of ids.entries()) {
        if (position === Math.floor(ids.length / 2)) rejoined = rejoinAll();
        redis.cli('CLIENT', 'KILL', 'ID', id);
        injections += 1;
        if (streaming() > 0) injectionsWhileStreaming += 1;
        await sleep(holdMs);
      }
      await posting;
      break;
    }
    case 'restart':
      await redis.kill();
      rejoined = during(holdMs, rejoinAll, postOverlay(overlayChanges, holdMs / 2));
      await sleep(holdMs);
      await redis.restart();
      break;
    case 'sigstop':
      redis.freeze();
      rejoined = during(holdMs, rejoinAll, postOverlay(overlayChanges, holdMs / 2));
      await sleep(holdMs);
      redis.thaw();
      break;
  }
  if (streaming() === 0) problems.push(`every stream had ended when ${fault} was over: the fault missed its window`);
  await rejoined;
  const statuses = await Promise.all(overlayPosts);
  const closed = [...before].filter((id) => !graphAiConnectionIds(redis).has(id)).length;

  // Every stream to its end.
  await Promise.all(
    streams.map(async (stream) => {
      const follower = stream.rejoin ?? stream.client;
      const id = stream.rejoin ? 2 : 1;
      try {
        await follower.terminalOf(id, 60_000);
      } catch {
        problems.push(`stream ${stream.index} (${stream.role}) got no terminal event`);
      }
    }),
  );

  const outcome: RedisFaultOutcome = {
    fault,
    holdMs,
    streams: streams.length,
    streamingAtFault,
    injections,
    injectionsWhileStreaming,
    connectionsClosed: closed,
    aborted: 0,
    rejoins: { 'rejoined-here': 0, 'rejoined-elsewhere': 0 },
    eventsLost: 0,
    eventsDuplicated: 0,
    rejoinsRefused: { 'rejoined-here': 0, 'rejoined-elsewhere': 0 },
    refusalCodes: [],
    answersStored: 0,
    overlay: {
      posted: statuses.length,
      accepted: statuses.filter((status) => status === 202).length,
      divergences: 0,
      kept: 0,
    },
    problems,
  };
  for (const stream of streams) judgeStream(stream, answer, outcome);
  // The thread of every stream holds the whole answer (a refused rejoin's client reads it there).
  await waitForAnswers(streams, instances, answer, outcome);

  await sleep(SETTLE_MS);
  const shared = overlayNodesInRedis(redis);
  outcome.overlay.kept = [...shared].filter((key) => key.startsWith(`fault-${fault}-`)).length;
  for (const [index, instance] of instances.entries()) {
    const replica = await overlayNodesOf(instance.url);
    if (!sameSet(replica, shared)) {
      outcome.overlay.divergences += 1;
      problems.push(
        `instance ${index}'s overlay differs from Redis's ${SETTLE_MS} ms after the recovery: [${[...replica].sort().join(', ')}] vs [${[...shared].sort().join(', ')}]`,
      );
    }
  }
  for (const stream of streams) {
    stream.client.close();
    stream.rejoin?.close();
  }
  return outcome;
}

/** Starts the rejoins a little into the fault and the overlay changes at once; resolves when the rejoins are sent. */
function during(holdMs: number, rejoinAll: () => Promise<unknown>, posting: Promise<void>): Promise<unknown> {
  return Promise.all([sleep(Math.min(300, holdMs / 3)).then(rejoinAll), posting]);
}

function isStreaming(stream: Stream): boolean {
  const events = stream.rejoin ? stream.rejoin.eventsOf(2) : stream.client.eventsOf(1);
  const done = events.some((event) => event.event === 'ai:complete' || event.event === 'ai:error');
  return !done && (stream.seen.length > 0 || textOf(events).length > 0);
}

/**
 * The client drops its connection mid-fault and rejoins with the last seq it got: on the same instance
 * (the gateway's sticky sessions) or on the next one (its instance went away, no stickiness).
 */
async function rejoin(stream: Stream, instances: TestAppProcess[]): Promise<void> {
  stream.seen = stream.client.eventsOf(1);
  stream.client.close();
  const lastSeq = Math.max(0, ...stream.seen.map((event) => seqOf(event) ?? 0));
  const target = stream.role === 'rejoined-here' ? stream.instance : (stream.instance + 1) % INSTANCES;
  stream.rejoin = await AiSocketClient.connect(instances[target].url, { token: token(stream.user) });
  stream.rejoin.socket.emit('ai:rejoin', { _id: 2, threadId: stream.threadId!, lastSeq });
}

function judgeStream(stream: Stream, answer: string, outcome: RedisFaultOutcome): void {
  const own = stream.rejoin ? stream.seen : stream.client.eventsOf(1);
  const after = stream.rejoin?.eventsOf(2) ?? [];
  const events = [...own, ...after];
  const terminal = events.find((event) => event.event === 'ai:complete' || event.event === 'ai:error');
  if (stream.role !== 'watched') outcome.rejoins[stream.role] += 1;
  const refusal = after.find((event) => event.event === 'ai:error' && seqOf(event) === undefined);
  if (stream.role !== 'watched' && refusal) {
    outcome.rejoinsRefused[stream.role] += 1;
    outcome.refusalCodes.push((refusal.payload as { code: string }).code);
    return;
  }
  const complete =
    terminal?.event === 'ai:complete' ? (terminal.payload as { fullText: string; aborted?: boolean }) : null;
  if (!complete || complete.aborted || complete.fullText !== answer) {
    outcome.aborted += 1;
    outcome.problems.push(
      `stream ${stream.index} (${stream.role}) ended with ${terminal ? `${terminal.event} ${JSON.stringify(terminal.payload).slice(0, 200)}` : 'nothing'}`,
    );
    return;
  }
  const seqs = events.map((event) => seqOf(event) ?? 0);
  const last = seqOf(terminal!) ?? 0;
  const unique = new Set(seqs);
  const lost = last - [...unique].filter((seq) => seq >= 1 && seq <= last).length;
  const duplicated = seqs.length - unique.size;
  if (stream.role !== 'watched') {
    outcome.eventsLost += lost;
    outcome.eventsDuplicated += duplicated;
  }
  if (lost + duplicated > 0 || textOf(events) !== answer)
    outcome.problems.push(
      `stream ${stream.index} (${stream.role}): ${lost} events lost, ${duplicated} duplicated, text ${textOf(events) === answer ? 'whole' : 'not the answer'}`,
    );
}

async function waitForAnswers(
  streams: Stream[],
  instances: TestAppProcess[],
  answer: string,
  outcome: RedisFaultOutcome,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const stream of streams) {
    for (;;) {
      const response = await request(instances[stream.instance].url)
        .get(`/api/ai/thread/${stream.threadId}`)
        .set('Authorization', `Bearer ${token(stream.user)}`);
      const last = (response.body as { messages?: Array<{ role: string; content: string }> }).messages?.at(-1);
      if (last?.role === 'assistant' && last.content === answer) {
        outcome.answersStored += 1;
        break;
      }
      if (Date.now() > deadline) {
        outcome.problems.push(`thread of stream ${stream.index} does not hold the whole answer`);
        break;
      }
      await sleep(200);
    }
  }
}

function postOverlayChange(url: string, key: string): Promise<number> {
  return request(url)
    .post(`/api/graphs/${GRAPH}/changes`)
    .set({ Authorization: `Bearer ${SYNC_TOKEN}`, 'X-Workspace': 'default' })
    .send({
      upsertNodes: [{ _key: key, graphKey: GRAPH, type: 'api-call', sheet: '0', posX: 10, posY: 10, data: { key } }],
      saved: false,
    })
    .timeout(30_000)
    .then(
      (response) => response.status,
      () => 0,
    );
}

/** The fault nodes Redis's overlay of the graph holds. */
function overlayNodesInRedis(redis: TestRedisServer): Set<string> {
  const fields = redis.cli('HKEYS', OVERLAY_HASH).split('\n');
  return new Set(fields.filter((field) => field.startsWith('n:fault-')).map((field) => field.slice(2)));
}

/** The fault nodes an instance shows in its export (its replica of the overlay over the store). */
async function overlayNodesOf(url: string): Promise<Set<string>> {
  const response = await request(url)
    .get(`/api/graphs/${GRAPH}`)
    .set('Authorization', `Bearer ${token('overlay-reader')}`);
  const nodes = (response.body as { nodes?: Array<{ _key: string }> }).nodes ?? [];
  return new Set(nodes.map((node) => node._key).filter((key) => key.startsWith('fault-')));
}

function sameSet(left: Set<string>, right: Set<string>): boolean {
  return left.size === right.size && [...left].every((item) => right.has(item));
}

/** Ids of the service's connections (named graph-ai:<role>). */
function graphAiConnectionIds(redis: TestRedisServer): Set<string> {
  const ids = new Set<string>();
  for (const line of redis.cli('CLIENT', 'LIST').split('\n')) {
    if (!/ name=graph-ai:/.test(line)) continue;
    const id = /^id=(\d+)/.exec(line)?.[1];
    if (id) ids.add(id);
  }
  return ids;
}

function resetRedis(redis: TestRedisServer): void {
  redis.cli('CONFIG', 'SET', 'maxmemory', '0');
  redis.cli('CONFIG', 'SET', 'timeout', '0');
  redis.cli('REPLICAOF', 'NO', 'ONE');
}

async function waitForRedisUp(instances: TestAppProcess[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reports = await Promise.all(
      instances.map(
        async (instance) => (await request(instance.url).get('/health')).body as { redis?: { status: string } },
      ),
    );
    if (reports.every((report) => report.redis?.status === 'up')) return;
    if (Date.now() > deadline) throw new Error(`Redis not up on every instance: ${JSON.stringify(reports)}`);
    await sleep(100);
  }
}

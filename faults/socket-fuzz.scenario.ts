import { MESSAGE_METADATA } from '@nestjs/websockets/constants';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AiGateway } from '../src/ai/socket/ai.gateway';
import { io } from 'socket.io-client';
import { AiSocketClient, ReceivedEvent } from '../test/support/ai-socket.client';
import { TestAppProcess } from '../test/support/test-app.process';
import { socketErrorShapeProblem } from './error-shape';
import { FuzzPrincipal, fuzzAuthEnv, fuzzPrincipals } from './fuzz-principals.fixture';
import { FuzzOptions, FuzzResult, FuzzTargetResult } from './rest-fuzz.scenario';

/** Every client → server event the gateway subscribes to (its @SubscribeMessage metadata): events added later are fuzzed too. */
export function gatewayEvents(gateway: abstract new (...args: never[]) => unknown = AiGateway): string[] {
  const prototype = gateway.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .map((name) => prototype[name])
    .filter((method): method is (...args: unknown[]) => unknown => typeof method === 'function')
    .map((method) => Reflect.getMetadata(MESSAGE_METADATA, method) as unknown)
    .filter((event): event is string => typeof event === 'string');
}

/** Field names of the `ai:*` payloads, mixed with values of any type. */
const FIELDS = [
  '_id',
  'graphKey',
  'message',
  'threadId',
  'mentions',
  'approved',
  'feedback',
  'answer',
  'token',
  'lastSeq',
  '__proto__',
  'constructor',
  'extra',
];
/** A payload of one event: a plausible one (so handlers run), a random mix of its fields, any JSON, or a hostile one. */
function payloadArbitrary(tokens: readonly string[]): fc.Arbitrary<unknown> {
  const token = tokens.length > 0 ? fc.option(fc.constantFrom(...tokens), { nil: undefined }) : fc.constant(undefined);
  const anyValue = fc.oneof(
    fc.constantFrom('nba-workflow', 'What does fetch-api do?', 'ai_0', true, false, null, 0, -1, 1.5, '', '..'),
    fc.string({ maxLength: 40, unit: 'grapheme' }),
    fc.integer(),
    fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
    fc.jsonValue({ maxDepth: 2 }),
    ...(tokens.length > 0 ? [fc.constantFrom(...tokens)] : []),
  );
  const withToken = (arbitrary: fc.Arbitrary<Record<string, unknown>>) =>
    fc.tuple(arbitrary, token).map(([value, chosen]) => (chosen === undefined ? value : { ...value, token: chosen }));
  return fc.oneof(
    {
      weight: 3,
      arbitrary: withToken(
        fc.record(
          {
            graphKey: fc.constantFrom('nba-workflow', 'missing'),
            message: fc.string({ minLength: 1, maxLength: 60 }),
            threadId: fc.option(fc.constantFrom('ai_0', 'x'), { nil: undefined }),
          },
          { requiredKeys: ['graphKey', 'message'] },
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: withToken(
        fc.record(
          {
            threadId: fc.constantFrom('ai_0', 'missing'),
            approved: fc.boolean(),
            feedback: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
          },
          { requiredKeys: ['threadId', 'approved'] },
        ),
      ),
    },
    { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), anyValue, { maxKeys: 6 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 65, max: 3_000 }).map((levels) => ({
        graphKey: 'nba-workflow',
        message: 'hi',
        mentions: JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`),
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(JSON.parse('{"graphKey":"nba-workflow","message":"hi","__proto__":{"admin":true}}'), {
        message: 'x'.repeat(120_000),
        graphKey: 'nba-workflow',
      }),
    },
  );
}

/** The fuzz's own `_id`s start here: far from the small and random integers its payloads carry. */
const OWN_ID_BASE = 10_000_000;

/**
 * Requests of the fuzz's own `_id`s that broke PROTOCOL.md §4: an event received but not exactly one
 * terminal (ai:complete or ai:error), or an event after it.
 */
export function terminalViolations(received: readonly ReceivedEvent[], ownIds: ReadonlySet<number>): string[] {
  const byId = new Map<number, string[]>();
  for (const { event, payload } of received) {
    const id = (payload as { _id?: unknown })._id;
    if (typeof id !== 'number' || !ownIds.has(id)) continue;
    byId.set(id, [...(byId.get(id) ?? []), event]);
  }
  const violations: string[] = [];
  for (const [id, events] of byId) {
    const terminals = events.filter((event) => event === 'ai:complete' || event === 'ai:error').length;
    const last = events[events.length - 1];
    if (terminals !== 1 || (last !== 'ai:complete' && last !== 'ai:error'))
      violations.push(`_id ${id}: ${events.join(', ')}`);
  }
  return violations;
}

/** The handshake of a socket, fuzzed: its token (by `auth` or a header), its page's origin, its query string. */
interface HandshakeCase {
  principal: number;
  via: 'auth' | 'header';
  origin: 'none' | 'own' | 'foreign' | 'null' | 'random';
  randomOrigin: string;
  query: Record<string, string>;
  transport: 'websocket' | 'polling';
}

/** Engine.IO's own query parameters: a client never sets them, so the fuzz leaves them to the client library. */
const RESERVED_QUERY = new Set(['EIO', 'transport', 'sid', 'j', 'b64', 't']);

function handshakeArbitrary(principals: number): fc.Arbitrary<HandshakeCase> {
  return fc.record({
    principal: fc.nat({ max: principals - 1 }),
    via: fc.constantFrom('auth' as const, 'header' as const),
    origin: fc.constantFrom('none' as const, 'own' as const, 'foreign' as const, 'null' as const, 'random' as const),
    randomOrigin: fc.webUrl({ withQueryParameters: false, withFragments: false }),
    query: fc
      .dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 })
      .map((query) => Object.fromEntries(Object.entries(query).filter(([key]) => !RESERVED_QUERY.has(key)))),
    transport: fc.constantFrom('websocket' as const, 'polling' as const),
  });
}

/** Opens the fuzzed socket: connected, or refused with the connect_error's message and data. */
function handshake(
  url: string,
  principal: FuzzPrincipal,
  attempt: HandshakeCase,
): Promise<{ connected: boolean; message?: string; data?: unknown }> {
  const own = new URL(url).origin;
  const origin =
    attempt.origin === 'own'
      ? own
      : attempt.origin === 'foreign'
        ? 'https://evil.example'
        : attempt.origin === 'null'
          ? 'null'
          : attempt.origin === 'random'
            ? new URL(attempt.randomOrigin).origin
            : undefined;
  const headers: Record<string, string> = {
    ...(origin !== undefined ? { Origin: origin } : {}),
    ...(attempt.via === 'header' && principal.authorization !== undefined
      ? { Authorization: principal.authorization }
      : {}),
  };
  const socket = io(`${url}/ai`, {
    forceNew: true,
    reconnection: false,
    transports: [attempt.transport],
    query: attempt.query,
    extraHeaders: headers,
    ...(attempt.via === 'auth' && principal.token !== undefined ? { auth: { token: principal.token } } : {}),
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.close();
      resolve({ connected: false, message: 'timeout' });
    }, 10_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.close();
      resolve({ connected: true });
    });
    socket.once('connect_error', (error: Error & { data?: unknown }) => {
      clearTimeout(timer);
      socket.close();
      resolve({ connected: false, message: error.message, data: error.data });
    });
  });
}

/**
 * Property-based fuzzing of every socket event of the gateway with fast-check, `runs` payloads per
 * event, against the real service in a child process (offline model). Without `auth`: AUTH_MODE=none,
 * one socket. With it: AUTH_MODE=jwt, one socket per role of two workspaces (each case on one of
 * them, its `token` field fuzzed with every principal's and hostile tokens), and a `handshake` target
 * that opens sockets with a fuzzed token (by `auth` or header), page origin and query string. Most
 * payloads get a numeric `_id` of their own so their answer can be awaited. The properties: every
 * `ai:error` is in PROTOCOL.md §4's shape and never `internal`, the sockets stay connected, every
 * request of the fuzz's own `_id`s that got an event gets exactly one terminal event and nothing
 * after it, and a handshake connects only with a valid token from an allowed page (its refusals in
 * the connect_error shape). Afterwards the process must be alive and its heap back near its baseline.
 */
export async function runSocketFuzzScenario(options: FuzzOptions): Promise<FuzzResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-socket-fuzz-'));
  const service = await TestAppProcess.start(
    {
      DATA_DIR: dataDir,
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
      ...(options.auth ? fuzzAuthEnv() : {}),
    },
    { execArgv: ['--expose-gc'], timeoutMs: 60_000 },
  );
  const principals = options.auth ? fuzzPrincipals() : [];
  const members = principals.filter((principal) => principal.valid);
  const clients = options.auth
    ? await Promise.all(members.map((member) => AiSocketClient.connect(service.url, { token: member.token })))
    : [await AiSocketClient.connect(service.url)];
  const tokens = principals.flatMap((principal) => (principal.token !== undefined ? [principal.token] : []));
  const payload = payloadArbitrary(tokens);
  const ownIds = new Set<number>();
  let nextId = OWN_ID_BASE;
  const newId = () => {
    const id = nextId++;
    ownIds.add(id);
    return id;
  };
  try {
    if (options.auth) {
      // The second workspace holds a copy of the demo graph, so its members' chats reach the agent too.
      const admins = members.filter((member) => member.name.startsWith('admin@'));
      const demo = await fetch(`${service.url}/api/graphs/nba-workflow`, {
        headers: { authorization: admins[0].authorization as string },
      });
      await fetch(`${service.url}/api/graphs/nba-workflow`, {
        method: 'PUT',
        headers: { authorization: admins[1].authorization as string, 'content-type': 'application/json' },
        body: await demo.text(),
      });
    }
    for (const client of clients)
      await client.chat({ _id: newId(), graphKey: 'nba-workflow', message: 'warm-up' }, 30_000);
    const before = await service.stats();
    const targets: FuzzTargetResult[] = [];
    for (const [index, event] of gatewayEvents().entries()) {
      const target: FuzzTargetResult = { target: event, cases: 0, answers: {}, serverErrors: 0, badShapes: 0 };
      const caseArbitrary = fc.record({ payload, ownId: fc.boolean(), socket: fc.nat({ max: clients.length - 1 }) });
      try {
        await fc.assert(
          fc.asyncProperty(caseArbitrary, async ({ payload: raw, ownId, socket }) => {
            const client = clients[socket];
            const id = newId();
            const sent =
              typeof raw === 'object' && raw !== null && !Array.isArray(raw) && ownId
                ? { ...(raw as object), _id: id }
                : raw;
            const from = client.received.length;
            client.emitRaw(event, sent);
            // A marker behind it: requests are handled in arrival order, so its error means the case was handled.
            const marker = newId();
            client.emitRaw('ai:chat', { _id: marker });
            await client.waitUntil(
              () => client.eventsOf(marker).some((item) => item.event === 'ai:error'),
              30_000,
              `marker ${marker}`,
            );
            // A request the case started (any event under its _id) must end with its terminal event.
            if (client.eventsOf(id).length > 0) await client.terminalOf(id, 30_000);
            target.cases += 1;
            let ok = client.socket.connected;
            for (const received of client.received.slice(from)) {
              if (received.event !== 'ai:error' || (received.payload as { _id?: unknown })._id === marker) continue;
              const problem = socketErrorShapeProblem(received.payload);
              const code = String((received.payload as { code?: unknown }).code);
              target.answers[code] = (target.answers[code] ?? 0) + 1;
              if (problem) {
                target.badShapes += 1;
                if (code === 'internal') target.serverErrors += 1;
                ok = false;
              }
            }
            if (
              !client.received
                .slice(from)
                .some((item) => item.event === 'ai:error' && (item.payload as { _id?: unknown })._id !== marker)
            ) {
              target.answers['(no error)'] = (target.answers['(no error)'] ?? 0) + 1;
            }
            return ok;
          }),
          { numRuns: options.runs, seed: (options.seed ?? 1) + index, endOnFailure: true },
        );
      } catch (error) {
        target.counterexample = String(error instanceof Error ? error.message : error).slice(0, 2_000);
      }
      targets.push(target);
    }
    if (options.auth) targets.push(await fuzzHandshakes(service.url, principals, options));
    // Late events would show here: every request of the fuzz ends with one terminal event, then nothing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const violations = clients.flatMap((client) => terminalViolations(client.received, ownIds));
    const alive = await new Promise<boolean>((resolve) => {
      httpRequest(new URL('/health', service.url), (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      })
        .on('error', () => resolve(false))
        .end();
    });
    const after = await service.stats();
    return {
      targets,
      cases: targets.reduce((sum, target) => sum + target.cases, 0),
      crashes: alive && clients.every((client) => client.socket.connected) ? 0 : 1,
      serverErrors: targets.reduce((sum, target) => sum + target.serverErrors, 0),
      badShapes: targets.reduce((sum, target) => sum + target.badShapes, 0),
      ...(options.auth ? { authBypasses: targets.reduce((sum, target) => sum + (target.authBypasses ?? 0), 0) } : {}),
      terminalViolations: violations.length,
      memory: {
        heapBeforeBytes: before.heapUsed,
        heapAfterBytes: after.heapUsed,
        rssBeforeBytes: before.rss,
        rssAfterBytes: after.rss,
      },
    };
  } finally {
    for (const client of clients) client.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * `runs` sockets opened with a fuzzed handshake. One connects only with a valid token from an allowed
 * page (no Origin, or the service's own); any other is refused with connect_error "unauthorized" or
 * "forbidden" and `data: { code, message }`. A socket that connects otherwise is an auth bypass.
 */
async function fuzzHandshakes(
  url: string,
  principals: FuzzPrincipal[],
  options: FuzzOptions,
): Promise<FuzzTargetResult> {
  const target: FuzzTargetResult = {
    target: 'handshake',
    cases: 0,
    answers: {},
    serverErrors: 0,
    badShapes: 0,
    authBypasses: 0,
  };
  try {
    await fc.assert(
      fc.asyncProperty(handshakeArbitrary(principals.length), async (attempt) => {
        const principal = principals[attempt.principal];
        const outcome = await handshake(url, principal, attempt);
        target.cases += 1;
        const label = outcome.connected ? 'connected' : String(outcome.message);
        target.answers[label] = (target.answers[label] ?? 0) + 1;
        const allowedPage = attempt.origin === 'none' || attempt.origin === 'own';
        const carriesToken =
          attempt.via === 'auth' ? principal.token !== undefined : principal.authorization !== undefined;
        const mayConnect = principal.valid && carriesToken && allowedPage;
        if (outcome.connected && !mayConnect) {
          target.authBypasses = (target.authBypasses ?? 0) + 1;
          return false;
        }
        if (outcome.connected) return true;
        const data = outcome.data as { code?: unknown; message?: unknown } | undefined;
        const shaped =
          (outcome.message === 'unauthorized' || outcome.message === 'forbidden') &&
          data?.code === outcome.message &&
          typeof data.message === 'string' &&
          data.message.length > 0;
        if (!shaped) target.badShapes += 1;
        // A valid member from an allowed page that is refused is a failure too.
        return shaped && !mayConnect;
      }),
      { numRuns: options.runs, seed: (options.seed ?? 1) + 1_000, endOnFailure: true },
    );
  } catch (error) {
    target.counterexample = String(error instanceof Error ? error.message : error).slice(0, 2_000);
  }
  return target;
}

import { MESSAGE_METADATA } from '@nestjs/websockets/constants';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AiGateway } from '../src/ai/socket/ai.gateway';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { TestAppProcess } from '../test/support/test-app.process';
import { socketErrorShapeProblem } from './error-shape';
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

/** Field names of the `ai:*` payloads (PROTOCOL.md §4 and §8), mixed with values of any type. */
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
const anyValue = fc.oneof(
  fc.constantFrom('nba-workflow', 'What does fetch-api do?', 'ai_0', true, false, null, 0, -1, 1.5, '', '..'),
  fc.string({ maxLength: 40, unit: 'grapheme' }),
  fc.integer(),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A payload: a plausible one of the event (so handlers run), a random mix of its fields, any JSON, or a hostile one. */
const payload: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      {
        graphKey: fc.constantFrom('nba-workflow', 'missing'),
        message: fc.string({ minLength: 1, maxLength: 60 }),
        threadId: fc.option(fc.constantFrom('ai_0', 'x'), { nil: undefined }),
      },
      { requiredKeys: ['graphKey', 'message'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        threadId: fc.constantFrom('ai_0', 'missing'),
        approved: fc.boolean(),
        feedback: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
      },
      { requiredKeys: ['threadId', 'approved'] },
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

/**
 * Property-based fuzzing of every socket event of the gateway with fast-check, `runs` payloads per
 * event on one connected socket, against the real service in a child process (AUTH_MODE=none,
 * offline model). Most payloads get a numeric `_id` of their own so their answer can be awaited.
 * The property: every `ai:error` is in PROTOCOL.md §4's shape and never `internal`, the socket stays
 * connected, and every request that got ai:thread ends with one terminal event. Afterwards the
 * process must be alive and its heap back near its baseline (docs/reliability.md).
 */
export async function runSocketFuzzScenario(options: FuzzOptions): Promise<FuzzResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-socket-fuzz-'));
  const service = await TestAppProcess.start(
    { DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' },
    { execArgv: ['--expose-gc'], timeoutMs: 60_000 },
  );
  const client = await AiSocketClient.connect(service.url);
  let nextId = 1;
  try {
    await client.chat({ _id: nextId++, graphKey: 'nba-workflow', message: 'warm-up' }, 30_000);
    const before = await service.stats();
    const targets: FuzzTargetResult[] = [];
    for (const [index, event] of gatewayEvents().entries()) {
      const target: FuzzTargetResult = { target: event, cases: 0, answers: {}, serverErrors: 0, badShapes: 0 };
      const caseArbitrary = fc.record({ payload, ownId: fc.boolean() });
      try {
        await fc.assert(
          fc.asyncProperty(caseArbitrary, async ({ payload: raw, ownId }) => {
            const id = nextId++;
            const sent =
              typeof raw === 'object' && raw !== null && !Array.isArray(raw) && ownId
                ? { ...(raw as object), _id: id }
                : raw;
            const from = client.received.length;
            client.emitRaw(event, sent);
            // A marker behind it: requests are handled in arrival order, so its error means the case was handled.
            const marker = nextId++;
            client.emitRaw('ai:chat', { _id: marker });
            await client.waitUntil(
              () => client.eventsOf(marker).some((item) => item.event === 'ai:error'),
              30_000,
              `marker ${marker}`,
            );
            // A request the case started (ai:thread) must end with its terminal event.
            if (client.eventsOf(id).some((item) => item.event === 'ai:thread')) await client.terminalOf(id, 30_000);
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
      crashes: alive && client.socket.connected ? 0 : 1,
      serverErrors: targets.reduce((sum, target) => sum + target.serverErrors, 0),
      badShapes: targets.reduce((sum, target) => sum + target.badShapes, 0),
      memory: {
        heapBeforeBytes: before.heapUsed,
        heapAfterBytes: after.heapUsed,
        rssBeforeBytes: before.rss,
        rssAfterBytes: after.rss,
      },
    };
  } finally {
    client.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

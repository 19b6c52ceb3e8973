import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TestAppProcess } from '../test/support/test-app.process';
import { errorShapeProblem } from './error-shape';
import { OpenApiSchema, pathParameter, requestBodyText, SchemaComponents } from './openapi-body.arbitrary';

export interface FuzzOptions {
  /** Generated cases per route. */
  runs: number;
  seed?: number;
}

/** One route's fuzzing. */
export interface FuzzTargetResult {
  target: string;
  cases: number;
  /** Answers by status class and code ("400 bad_request", "200"...). */
  answers: Record<string, number>;
  /** Answers with a 5xx status. */
  serverErrors: number;
  /** Error answers not in PROTOCOL.md's shape. */
  badShapes: number;
  /** The smallest failing case fast-check found, if any. */
  counterexample?: string;
}

export interface FuzzResult {
  targets: FuzzTargetResult[];
  cases: number;
  /** The service process died (or stopped answering /health) during the run. */
  crashes: number;
  serverErrors: number;
  badShapes: number;
  memory: { heapBeforeBytes: number; heapAfterBytes: number; rssBeforeBytes: number; rssAfterBytes: number };
}

interface Operation {
  method: string;
  path: string;
  bodySchema: OpenApiSchema | undefined;
}

/** Every operation of the service's OpenAPI document (/docs-json): routes added later are fuzzed too. */
export function operationsOf(document: {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: OpenApiSchema }> } }>>;
}): Operation[] {
  const operations: Operation[] = [];
  for (const [route, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      operations.push({
        method: method.toUpperCase(),
        path: route,
        bodySchema: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

function send(
  baseUrl: string,
  method: string,
  route: string,
  body: string | undefined,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> =
      body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const call = httpRequest(new URL(route, baseUrl), { method, headers }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
      );
    });
    call.on('error', reject);
    call.end(body);
  });
}

/**
 * Property-based fuzzing of every REST operation of the OpenAPI document with fast-check: bodies
 * shaped by each operation's request schema, one-thing-wrong variants, any JSON and hostile texts,
 * with random path parameters; `runs` cases per operation against the real service in a child
 * process (AUTH_MODE=none, offline model). The property: the answer is not 5xx, and every error
 * answer is in PROTOCOL.md's shape (errorShapeProblem). Afterwards the process must be alive and its
 * heap back near its baseline (docs/reliability.md).
 */
export async function runRestFuzzScenario(options: FuzzOptions): Promise<FuzzResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-rest-fuzz-'));
  const service = await TestAppProcess.start(
    { DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'local', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' },
    { execArgv: ['--expose-gc'], timeoutMs: 60_000 },
  );
  try {
    const document = JSON.parse((await send(service.url, 'GET', '/docs-json', undefined)).text) as Parameters<
      typeof operationsOf
    >[0] & { components?: { schemas?: SchemaComponents } };
    const components = document.components?.schemas ?? {};
    const operations = operationsOf(document);
    // Warm-up: every route once with its example-free shape, so the baseline includes what a first call loads.
    for (const operation of operations)
      await send(
        service.url,
        operation.method,
        operation.path.replace(/\{[^}]+\}/g, 'nba-workflow'),
        operation.bodySchema ? '{}' : undefined,
      );
    const before = await service.stats();

    const targets: FuzzTargetResult[] = [];
    for (const [index, operation] of operations.entries()) {
      const target: FuzzTargetResult = {
        target: `${operation.method} ${operation.path}`,
        cases: 0,
        answers: {},
        serverErrors: 0,
        badShapes: 0,
      };
      const parameters = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      const caseArbitrary = fc.record({
        parameters: fc.tuple(...parameters.map(() => pathParameter)),
        body:
          operation.method === 'GET' || operation.method === 'DELETE'
            ? fc.constant(undefined)
            : requestBodyText(operation.bodySchema, components),
      });
      try {
        await fc.assert(
          fc.asyncProperty(caseArbitrary, async ({ parameters: values, body }) => {
            let route = operation.path;
            parameters.forEach(
              (name, position) => (route = route.replace(`{${name}}`, encodeURIComponent(values[position] ?? ''))),
            );
            const answer = await send(service.url, operation.method, route, body);
            target.cases += 1;
            let parsed: unknown;
            try {
              parsed = answer.text ? JSON.parse(answer.text) : null;
            } catch {
              parsed = answer.text;
            }
            const code =
              answer.status >= 400 && typeof parsed === 'object' && parsed !== null
                ? ` ${String((parsed as { code?: unknown }).code)}`
                : '';
            target.answers[`${answer.status}${code}`] = (target.answers[`${answer.status}${code}`] ?? 0) + 1;
            if (answer.status >= 500) target.serverErrors += 1;
            const shape = answer.status >= 400 ? errorShapeProblem(parsed, answer.status) : null;
            if (shape) target.badShapes += 1;
            return answer.status < 500 && shape === null;
          }),
          { numRuns: options.runs, seed: (options.seed ?? 1) + index, endOnFailure: true },
        );
      } catch (error) {
        target.counterexample = String(error instanceof Error ? error.message : error).slice(0, 2_000);
      }
      targets.push(target);
    }

    const health = await send(service.url, 'GET', '/health', undefined).catch(() => ({ status: 0, text: '' }));
    const after = await service.stats();
    return {
      targets,
      cases: targets.reduce((sum, target) => sum + target.cases, 0),
      crashes: health.status === 200 ? 0 : 1,
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
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

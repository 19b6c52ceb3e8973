import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TestAppProcess } from '../test/support/test-app.process';
import { errorShapeProblem } from './error-shape';
import { fuzzAuthEnv, fuzzPrincipals } from './fuzz-principals.fixture';
import { OpenApiSchema, pathParameter, requestBodyText, SchemaComponents } from './openapi-body.arbitrary';

export interface FuzzOptions {
  /** Generated cases per route. */
  runs: number;
  seed?: number;
  /**
   * With authentication on (AUTH_MODE=jwt): each case acts as one of every role in two workspaces or
   * as a hostile client (fuzz-principals.fixture.ts), with its query string and headers fuzzed too.
   */
  auth?: boolean;
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
  /** With auth: answers below 400 to a request without a valid token on a route that requires one. */
  authBypasses?: number;
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
  /** With auth: see FuzzTargetResult.authBypasses. */
  authBypasses?: number;
  /** Socket fuzz: requests of the fuzz's own `_id`s without exactly one terminal event, or with an event after it. */
  terminalViolations?: number;
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

/** Headers a client may add to any request, fuzzed with the values below. */
const FUZZED_HEADERS = [
  'x-workspace',
  'idempotency-key',
  'accept',
  'accept-language',
  'accept-encoding',
  'content-type',
  'x-forwarded-for',
  'x-forwarded-host',
  'origin',
  'cookie',
  'if-none-match',
  'range',
  'x-request-id',
];
/** Printable ASCII only: anything else is refused by the HTTP client itself, never reaching the service. */
const headerValue = fc.oneof(
  fc.constantFrom('default', 'beta', '*/*', 'application/json', 'text/plain; charset=latin1', 'gzip', 'fr-FR', ''),
  fc.string({ maxLength: 60 }).map((text) => text.replace(/[^\x20-\x7e]/g, '')),
);
/** Query strings: the parameters routes read (limit), and anything else. */
const queryParameters = fc.dictionary(
  fc.oneof(
    fc.constantFrom('limit', 'graphKey', 'workspace', 'threadId', '__proto__', 'sheet'),
    fc.string({ maxLength: 10 }),
  ),
  fc.oneof(fc.constantFrom('10', '-1', '1e9', 'abc', '', 'default'), fc.string({ maxLength: 20 })),
  { maxKeys: 3 },
);

function send(
  baseUrl: string,
  method: string,
  route: string,
  body: string | undefined,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...extraHeaders,
      ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
    };
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
 * process (offline model). Without `auth`: AUTH_MODE=none. With it: AUTH_MODE=jwt, each case acting
 * as a role of one of two workspaces or as a hostile client (fuzz-principals.fixture.ts), with fuzzed query
 * strings and headers. The property: the answer is not 5xx, every error answer is in PROTOCOL.md's
 * shape (errorShapeProblem), and (with auth) a route that requires a token never answers below 400
 * without a valid one. Afterwards the process must be alive and its heap back near its baseline.
 */
export async function runRestFuzzScenario(options: FuzzOptions): Promise<FuzzResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-rest-fuzz-'));
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
  const admins = principals.filter((principal) => principal.valid && principal.name.startsWith('admin@'));
  try {
    const document = JSON.parse((await send(service.url, 'GET', '/docs-json', undefined)).text) as Parameters<
      typeof operationsOf
    >[0] & { components?: { schemas?: SchemaComponents } };
    const components = document.components?.schemas ?? {};
    const operations = operationsOf(document);
    if (options.auth) {
      // The second workspace holds a copy of the demo graph: its principals' requests reach the handlers too.
      const [home, beta] = admins.map((admin) => ({ authorization: admin.authorization as string }));
      const demo = await send(service.url, 'GET', '/api/graphs/nba-workflow', undefined, home);
      await send(service.url, 'PUT', '/api/graphs/nba-workflow', demo.text, beta);
    }
    // Which routes require a token: answered 401 when called without one (the others are public).
    const protectedRoutes = new Set<string>();
    // Warm-up: every route once with its example-free shape, so the baseline includes what a first call loads.
    for (const operation of operations) {
      const route = operation.path.replace(/\{[^}]+\}/g, 'nba-workflow');
      const body = operation.bodySchema ? '{}' : undefined;
      const anonymous = await send(service.url, operation.method, route, body);
      if (anonymous.status === 401) protectedRoutes.add(`${operation.method} ${operation.path}`);
      for (const admin of admins)
        await send(service.url, operation.method, route, body, { authorization: admin.authorization as string });
    }
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
        principal: options.auth ? fc.nat({ max: principals.length - 1 }) : fc.constant(-1),
        query: options.auth ? queryParameters : fc.constant({}),
        headers: options.auth
          ? fc.dictionary(fc.constantFrom(...FUZZED_HEADERS), headerValue, { maxKeys: 3 })
          : fc.constant({}),
      });
      const requiresToken = protectedRoutes.has(target.target);
      if (options.auth) target.authBypasses = 0;
      try {
        await fc.assert(
          fc.asyncProperty(caseArbitrary, async ({ parameters: values, body, principal, query, headers }) => {
            let route = operation.path;
            parameters.forEach(
              (name, position) => (route = route.replace(`{${name}}`, encodeURIComponent(values[position] ?? ''))),
            );
            const search = new URLSearchParams(query).toString();
            if (search) route = `${route}?${search}`;
            const acting = principals[principal];
            const sent: Record<string, string> = { ...headers };
            if (acting?.authorization !== undefined) sent.authorization = acting.authorization;
            const answer = await send(service.url, operation.method, route, body, sent);
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
            const bypass = requiresToken && acting !== undefined && !acting.valid && answer.status < 400;
            if (bypass) target.authBypasses = (target.authBypasses ?? 0) + 1;
            return answer.status < 500 && shape === null && !bypass;
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
      ...(options.auth ? { authBypasses: targets.reduce((sum, target) => sum + (target.authBypasses ?? 0), 0) } : {}),
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

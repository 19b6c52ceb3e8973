import { runRestFuzzScenario } from './rest-fuzz.scenario';
import { gatewayEvents, runSocketFuzzScenario } from './socket-fuzz.scenario';
import { FuzzResult } from './rest-fuzz.scenario';

/** A seeded sample of `npm run faults`'s fuzzing (1,000 cases per route or event there). */
const RUNS = 40;
const SEED = 20261125;
/** What the caches may keep of a few hundred requests (threads, retrieval results): far below a leak of the fuzz itself. */
const HEAP_GROWTH_LIMIT_BYTES = 24 * 1024 * 1024;

function expectClean(result: FuzzResult): void {
  for (const target of result.targets) {
    expect({
      target: target.target,
      cases: target.cases,
      serverErrors: target.serverErrors,
      badShapes: target.badShapes,
      counterexample: target.counterexample,
    }).toEqual({
      target: target.target,
      cases: RUNS,
      serverErrors: 0,
      badShapes: 0,
      counterexample: undefined,
    });
  }
  expect(result.crashes).toBe(0);
  expect(result.memory.heapAfterBytes - result.memory.heapBeforeBytes).toBeLessThan(HEAP_GROWTH_LIMIT_BYTES);
}

describe('Fuzzing every REST route of the OpenAPI document and every socket event (CI sample)', () => {
  it('answers every generated REST body without a 5xx, in the error shape, and keeps its memory', async () => {
    const result = await runRestFuzzScenario({ runs: RUNS, seed: SEED });
    expect(result.targets.map((target) => target.target)).toEqual(
      expect.arrayContaining([
        'POST /api/ai/chat',
        'PUT /api/graphs/{graphKey}',
        'POST /api/graphs/{graphKey}/changes',
      ]),
    );
    expectClean(result);
  }, 180_000);

  it('with JWT auth across roles and two workspaces, fuzzed query strings and headers too: no 5xx, the error shape, no answer without a valid token', async () => {
    const result = await runRestFuzzScenario({ runs: RUNS, seed: SEED, auth: true });
    expectClean(result);
    expect(result.authBypasses).toBe(0);
  }, 240_000);

  it('answers every generated socket payload without internal errors, in the ai:error shape, and keeps its memory', async () => {
    const result = await runSocketFuzzScenario({ runs: RUNS, seed: SEED });
    expect(result.targets.map((target) => target.target)).toEqual(gatewayEvents());
    expectClean(result);
    expect(result.terminalViolations).toBe(0);
  }, 180_000);

  it('with JWT auth across roles, two workspaces and fuzzed handshakes: no internal error, one terminal event per request, no socket without a valid token from an allowed page', async () => {
    const result = await runSocketFuzzScenario({ runs: RUNS, seed: SEED, auth: true });
    expect(result.targets.map((target) => target.target)).toEqual([...gatewayEvents(), 'handshake']);
    expectClean(result);
    expect(result.terminalViolations).toBe(0);
    expect(result.authBypasses).toBe(0);
  }, 240_000);
});

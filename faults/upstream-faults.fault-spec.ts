import { resetLogSink, setLogSink } from '../src/observability/logger';
import { LogEntry } from '../src/observability/log-entry';
import { runUpstreamFaultsScenario, upstreamFaults } from './upstream-faults.scenario';

/**
 * The CI-sized run of `npm run faults`'s upstream section (faults/upstream-faults.scenario.ts): every
 * fault once, on the real app and the real SDKs against the scripted server.
 */
describe('Upstream faults mid-conversation (Socket.IO, OpenAI and Anthropic wires)', () => {
  const errors: LogEntry[] = [];
  beforeAll(() => setLogSink((entry) => entry.level === 'error' && errors.push(entry)));
  afterAll(() => resetLogSink());

  it('answers each with a classified, retryable ai:error within its bound; the thread stays valid and the next message is answered', async () => {
    const result = await runUpstreamFaultsScenario();
    expect(result.outcomes).toHaveLength(upstreamFaults().length);
    for (const outcome of result.outcomes) {
      expect({
        fault: `${outcome.name} (${outcome.provider})`,
        code: outcome.code,
        retryable: outcome.retryable,
        withinBound: outcome.withinBound,
        problems: outcome.threadProblems,
        resumed: outcome.resumed,
      }).toEqual({
        fault: `${outcome.name} (${outcome.provider})`,
        code: expect.stringMatching(/^(network|timeout|server_error)$/),
        retryable: true,
        withinBound: true,
        problems: [],
        resumed: true,
      });
    }
    expect(result.failures).toBe(0);
    // Each is logged once as the upstream's failure (llm_error), never as the service's own (unhandled_error, a stack).
    expect(errors.filter((entry) => entry.event !== 'llm_error')).toEqual([]);
    expect(errors.length).toBeGreaterThanOrEqual(result.outcomes.length);
  }, 120_000);
});

import { runCommitConflictScenario } from './commit-conflict.scenario';
import { runContextLengthScenario } from './context-length.scenario';
import { runIsolationScenario } from './isolation.scenario';

/**
 * The CI-sized runs of `npm run faults`' sections for conversations under load:
 * conversations interleaved under load stay apart, a round commit that meets a revision conflict is
 * replayed, and a prompt over the model's window is retried with a smaller context.
 */
describe('seed 003 under load and faults (CI sample)', () => {
  it('keeps conversations interleaved under load apart', async () => {
    const result = await runIsolationScenario({ conversations: 3, questions: 6 });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ upstreamRequests: 36, mixedRequests: 0, contaminatedThreads: 0, invalidThreads: 0 });
    expect(result.interleavings).toBeGreaterThan(6);
  }, 120_000);

  it('replays a round commit that met a revision conflict: every run answers, every thread stays valid', async () => {
    const result = await runCommitConflictScenario({ runs: 3 });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ runs: 3, answered: 3, replayed: 3, failed: 0, invalidThreads: 0 });
  }, 120_000);

  it('answers every question of a conversation that outgrows the model window, retrying once with a smaller context', async () => {
    const result = await runContextLengthScenario({ questions: 8 });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ failed: 0, invalidThreads: 0 });
    expect(result.answeredAfterRetry).toBeGreaterThan(0);
    expect(result.answeredDirectly + result.answeredAfterRetry).toBe(8);
    expect(result.refusedPrompts).toBe(result.answeredAfterRetry);
  }, 120_000);
});

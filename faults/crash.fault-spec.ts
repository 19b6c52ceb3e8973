import { runCrashScenario } from './crash.scenario';

/**
 * The CI-sized run of `npm run faults`'s crash section (faults/crash.scenario.ts: 50 kills there): the
 * real service in a child process, killed with SIGKILL at random moments of scripted conversations and
 * restarted on the same data directory (docs/reliability.md).
 */
describe('kill -9 of the service mid-conversation (CI sample)', () => {
  it('leaves every thread valid and resumable, with every acknowledged message (killed the moment ai:thread arrives too), after each restart', async () => {
    const result = await runCrashScenario({ kills: 5, killsAtThread: 2, seed: 20261125 });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({
      kills: 5,
      restarts: 5,
      invalidThreads: 0,
      lostMessages: 0,
      notResumable: 0,
      killsAtThread: 2,
      lostAtThread: 0,
    });
    expect(result.threads).toBeGreaterThan(0);
    expect(result.acknowledgedMessages).toBeGreaterThan(result.threads);
  }, 180_000);
});

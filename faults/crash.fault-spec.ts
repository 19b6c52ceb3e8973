import { runCrashScenario } from './crash.scenario';

/**
 * The CI-sized run of `npm run faults`'s crash section (faults/crash.scenario.ts: 50 kills there): the
 * real service in a child process, killed with SIGKILL at the moment ai:thread arrives, mid-stream, mid tool round and mid commit, and
 * restarted on the same data directory.
 */
describe('kill -9 of the service mid-conversation (CI sample)', () => {
  it('lands kills at ai:thread, mid-stream, mid tool round and mid commit, and leaves every thread valid and resumable, with every acknowledged message, after each restart', async () => {
    const result = await runCrashScenario({ kills: 4, killsAtThread: 1, seed: 20261125 });
    expect(result.problems).toEqual([]);
    expect(result.missed).toEqual([]);
    expect(result.phases).toEqual({
      'at ai:thread': { aimed: 1, landed: 1 },
      streaming: { aimed: 1, landed: 1 },
      'tool round': { aimed: 1, landed: 1 },
      commit: { aimed: 1, landed: 1 },
    });
    expect(result).toMatchObject({
      kills: 4,
      restarts: 4,
      invalidThreads: 0,
      lostMessages: 0,
      notResumable: 0,
      killsAtThread: 1,
      lostAtThread: 0,
    });
    expect(result.threads).toBeGreaterThan(0);
    expect(result.acknowledgedMessages).toBeGreaterThan(result.threads);
  }, 180_000);
});

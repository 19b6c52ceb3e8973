import { runResumeRaceScenario } from './resume-race.scenario';

/**
 * The CI-sized run of `npm run faults`'s racing resumes (faults/resume-race.scenario.ts: 100 resumes
 * there): approvals of one proposal sent at once to two service processes on one SQLite store.
 */
describe('Racing resumes of one interrupt across two processes (CI sample)', () => {
  it('applies the proposal exactly once; every other resume is refused with 409; the thread stays valid', async () => {
    const result = await runResumeRaceScenario({ resumes: 30 });
    expect(result).toEqual({
      rounds: 1,
      resumesPerRound: 30,
      applied: [1],
      nodesCreated: [1],
      unexpected: [],
      invalidThreads: 0,
      continuations: 1,
    });
  }, 120_000);
});

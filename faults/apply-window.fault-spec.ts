import { runApplyWindowScenario } from './apply-window.scenario';

/**
 * The CI-sized run of `npm run faults`'s apply-window section (faults/apply-window.scenario.ts: 50 approvals and 20
 * autonomous batches killed in their window there): kills aimed between a change's operation and the thread's commit,
 * retried after the restart; approve and reject raced across two processes; stale proposals and reverts over a human's
 * later edit.
 */
describe('kill -9 inside the apply window (CI sample)', () => {
  it('applies each change exactly once, says so in its thread, has one outcome per raced proposal, never applies a stale one nor overwrites a later edit', async () => {
    const result = await runApplyWindowScenario({
      approvalKills: 3,
      batchKills: 2,
      raceRounds: 2,
      staleChecks: 2,
      revertChecks: 2,
      seed: 20261127,
    });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({
      approvalKills: { aimed: 3, landed: 3 },
      batchKills: { aimed: 2, landed: 2 },
      revertKills: { aimed: 1, landed: 1 },
      doubleApplies: 0,
      untold: 0,
      invalidThreads: 0,
      race: { rounds: 2, notOneOutcome: 0 },
      staleApplied: 0,
      staleChecked: 2,
      revertsOverwritingHumanEdits: 0,
      revertsChecked: 1,
    });
    expect(result.recordBytes.operations).toBeGreaterThan(0);
  }, 300_000);
});

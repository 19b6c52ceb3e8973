import { randomUUID } from 'node:crypto';
import type { AutomationRun, StoredAutomation } from '../../src/automations/automation';
import type { AutomationRepository, RunClaim } from '../../src/automations/automation.repository';
import { LOST_RUN_MESSAGE } from '../../src/automations/automation-run.messages';

export interface AutomationRepositoryFixture {
  repository: AutomationRepository;
  /** Another repository on the same store (another instance), for races; defaults to the same one. */
  another?: AutomationRepository;
  close(): Promise<void>;
}

const T0 = 1_800_000_000_000;
const MINUTE = 60_000;
const usage = (costUsd: number, tokens = 100) => ({
  promptTokens: tokens,
  completionTokens: tokens / 2,
  cachedTokens: 0,
  totalTokens: tokens * 1.5,
  costUsd,
  llmCalls: 1,
});

/**
 * The behaviour every AutomationRepository adapter must have (SQLite, ArangoDB): CRUD per workspace,
 * atomic claims (one winner per slot), one run at a time with a lease, lost runs, run records. Each
 * test works in workspaces of its own.
 */
export function describeAutomationRepositoryContract(
  name: string,
  create: () => Promise<AutomationRepositoryFixture>,
): void {
  describe(`AutomationRepository contract: ${name}`, () => {
    let fixture: AutomationRepositoryFixture;
    let repository: AutomationRepository;
    let workspace: string;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
    });
    afterEach(() => fixture.close());

    const automation = (overrides: Partial<StoredAutomation> = {}): StoredAutomation => ({
      automationId: `aut_${randomUUID().replace(/-/g, '')}`,
      workspace,
      userId: 'alice',
      userRole: 'editor',
      name: 'Weekly report',
      graphKey: 'nba-workflow',
      prompt: 'Summarize {{period:-1_WEEK}}',
      schedule: { cron: '0 9 * * 1', timezone: 'Europe/Paris' },
      enabled: true,
      nextRunTime: T0,
      runningRunId: null,
      runLeaseExpiresAt: null,
      createdTime: T0 - MINUTE,
      updatedTime: T0 - MINUTE,
      ...overrides,
    });

    const scheduled = (stored: StoredAutomation, overrides: Partial<RunClaim> = {}): RunClaim => ({
      workspace: stored.workspace,
      automationId: stored.automationId,
      run: {
        runId: `run_${randomUUID().replace(/-/g, '')}`,
        trigger: 'schedule',
        slotTime: stored.nextRunTime,
        startedTime: T0 + 1_000,
      },
      expectedNextRunTime: stored.nextRunTime as number,
      nextRunTime: T0 + 7 * 24 * 60 * MINUTE,
      leaseExpiresAt: T0 + 2 * MINUTE,
      runsKept: 500,
      ...overrides,
    });

    const manual = (stored: StoredAutomation, startedTime = T0 + 1_000): RunClaim => ({
      workspace: stored.workspace,
      automationId: stored.automationId,
      run: { runId: `run_${randomUUID().replace(/-/g, '')}`, trigger: 'manual', slotTime: null, startedTime },
      leaseExpiresAt: startedTime + 2 * MINUTE,
      runsKept: 500,
    });

    describe('automations', () => {
      it('stores an automation and reads it back in its workspace only', async () => {
        const stored = automation({ maxCostUsdPerRun: 0.5, maxCostUsdPerMonth: 10, providerConfigId: 'pc_1' });
        await repository.insert(stored);
        expect(await repository.get(workspace, stored.automationId)).toEqual(stored);
        expect(await repository.get(`${workspace}-other`, stored.automationId)).toBeNull();
        const plain = automation({ createdTime: T0 });
        await repository.insert(plain);
        expect((await repository.list(workspace)).map((item) => item.automationId)).toEqual([
          stored.automationId,
          plain.automationId,
        ]);
        expect(await repository.list(`${workspace}-other`)).toEqual([]);
        expect(await repository.count(workspace)).toBe(2);
        const read = await repository.get(workspace, plain.automationId);
        expect(read).not.toHaveProperty('maxCostUsdPerRun');
        expect(read).not.toHaveProperty('providerConfigId');
      });

      it('updates the given fields, removes those set to null, and moves updatedTime forward', async () => {
        const stored = automation({ maxCostUsdPerRun: 0.5, providerConfigId: 'pc_1' });
        await repository.insert(stored);
        const changed = await repository.update(
          workspace,
          stored.automationId,
          {
            name: 'Daily',
            schedule: { cron: '0 8 * * *', timezone: 'UTC' },
            enabled: false,
            nextRunTime: null,
            maxCostUsdPerRun: null,
            providerConfigId: null,
          },
          stored.updatedTime,
        );
        expect(changed).toMatchObject({
          name: 'Daily',
          schedule: { cron: '0 8 * * *', timezone: 'UTC' },
          enabled: false,
          nextRunTime: null,
        });
        expect(changed).not.toHaveProperty('maxCostUsdPerRun');
        expect(changed).not.toHaveProperty('providerConfigId');
        expect(changed!.updatedTime).toBeGreaterThan(stored.updatedTime);
        expect(await repository.get(workspace, stored.automationId)).toEqual(changed);
        expect(await repository.update(`${workspace}-other`, stored.automationId, { name: 'x' }, T0)).toBeNull();
        expect(await repository.listDue(T0 + 1_000, 1000)).not.toContainEqual(
          expect.objectContaining({ automationId: stored.automationId }),
        );
      });

      it('deletes an automation with its runs, in its workspace only', async () => {
        const stored = automation();
        await repository.insert(stored);
        const claim = scheduled(stored);
        await repository.claimRun(claim, T0 + 1_000);
        expect(await repository.delete(`${workspace}-other`, stored.automationId)).toBe(false);
        expect(await repository.delete(workspace, stored.automationId)).toBe(true);
        expect(await repository.get(workspace, stored.automationId)).toBeNull();
        expect(await repository.getRun(workspace, claim.run.runId)).toBeNull();
        expect(await repository.delete(workspace, stored.automationId)).toBe(false);
      });
    });

    describe('claims', () => {
      it('lists enabled automations whose slot has come, earliest first', async () => {
        const later = automation({ nextRunTime: T0 + MINUTE });
        const earlier = automation({ nextRunTime: T0 - MINUTE });
        const future = automation({ nextRunTime: T0 + 10 * MINUTE });
        const disabled = automation({ enabled: false, nextRunTime: T0 - MINUTE });
        for (const item of [later, earlier, future, disabled]) await repository.insert(item);
        const due = (await repository.listDue(T0 + MINUTE, 1000)).filter((item) => item.workspace === workspace);
        expect(due).toEqual([
          { workspace, automationId: earlier.automationId, nextRunTime: T0 - MINUTE },
          { workspace, automationId: later.automationId, nextRunTime: T0 + MINUTE },
        ]);
      });

      it('claims a due slot once: the next slot, the hold and the run are written together', async () => {
        const stored = automation();
        await repository.insert(stored);
        const claim = scheduled(stored);
        const claimed = await repository.claimRun(claim, T0 + 1_000);
        expect(claimed).toEqual({
          claimed: true,
          automation: expect.objectContaining({
            nextRunTime: claim.nextRunTime,
            runningRunId: claim.run.runId,
            runLeaseExpiresAt: claim.leaseExpiresAt,
          }),
        });
        const run = await repository.getRun(workspace, claim.run.runId);
        expect(run).toEqual<AutomationRun>({
          runId: claim.run.runId,
          workspace,
          automationId: stored.automationId,
          threadId: null,
          trigger: 'schedule',
          slotTime: T0,
          startedTime: T0 + 1_000,
          finishedTime: null,
          outcome: 'running',
          usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0, totalTokens: 0, costUsd: 0, llmCalls: 0 },
          error: null,
        });
        // The same slot again (another instance that saw it due): not due any more.
        expect(await repository.claimRun(scheduled(stored), T0 + 1_500)).toEqual({ claimed: false, reason: 'not_due' });
        expect(await repository.claimRun(scheduled({ ...stored, automationId: 'aut_missing' }), T0 + 1_500)).toEqual({
          claimed: false,
          reason: 'gone',
        });
      });

      it('gives a slot claimed by several instances at once to exactly one', async () => {
        const stored = automation();
        await repository.insert(stored);
        const other = fixture.another ?? repository;
        const claims = Array.from({ length: 6 }, (_, index) =>
          (index % 2 === 0 ? repository : other).claimRun(scheduled(stored), T0 + 1_000),
        );
        const results = await Promise.all(claims);
        expect(results.filter((result) => result.claimed)).toHaveLength(1);
        const runs = await repository.listRuns(workspace, stored.automationId, 10);
        expect(runs).toHaveLength(1);
      });

      it('runs one run at a time: busy while a live run holds it, free once released', async () => {
        const stored = automation();
        await repository.insert(stored);
        const first = manual(stored);
        expect((await repository.claimRun(first, T0 + 1_000)).claimed).toBe(true);
        expect(await repository.claimRun(manual(stored), T0 + 2_000)).toEqual({ claimed: false, reason: 'busy' });
        expect(await repository.claimRun(scheduled(stored), T0 + 2_000)).toEqual({ claimed: false, reason: 'busy' });
        expect(await repository.renewRunLease(workspace, stored.automationId, first.run.runId, T0 + 10 * MINUTE)).toBe(
          true,
        );
        expect(await repository.renewRunLease(workspace, stored.automationId, 'run_other', T0 + 10 * MINUTE)).toBe(
          false,
        );
        expect(await repository.claimRun(manual(stored), T0 + 5 * MINUTE)).toEqual({ claimed: false, reason: 'busy' });
        await repository.releaseRun(workspace, stored.automationId, 'run_other');
        expect((await repository.get(workspace, stored.automationId))?.runningRunId).toBe(first.run.runId);
        await repository.releaseRun(workspace, stored.automationId, first.run.runId);
        expect(await repository.get(workspace, stored.automationId)).toMatchObject({
          runningRunId: null,
          runLeaseExpiresAt: null,
        });
        const second = manual(stored, T0 + 6 * MINUTE);
        expect((await repository.claimRun(second, T0 + 6 * MINUTE)).claimed).toBe(true);
        // A manual run leaves the schedule as it was.
        expect((await repository.get(workspace, stored.automationId))?.nextRunTime).toBe(T0);
        expect((await repository.listRuns(workspace, stored.automationId, 10)).map((run) => run.runId)).toEqual([
          second.run.runId,
          first.run.runId,
        ]);
      });

      it('does not claim a disabled automation on schedule, but a manual run still may', async () => {
        const stored = automation({ enabled: false });
        await repository.insert(stored);
        expect(await repository.claimRun(scheduled(stored), T0 + 1_000)).toEqual({ claimed: false, reason: 'not_due' });
        expect((await repository.claimRun(manual(stored), T0 + 1_000)).claimed).toBe(true);
      });

      it('records a run whose lease expired as lost, when claimed over or swept', async () => {
        const stored = automation();
        const swept = automation();
        await repository.insert(stored);
        await repository.insert(swept);
        const crashed = manual(stored);
        await repository.claimRun(crashed, T0 + 1_000);
        const next = manual(stored, T0 + 3 * MINUTE);
        expect((await repository.claimRun(next, T0 + 3 * MINUTE)).claimed).toBe(true);
        expect(await repository.getRun(workspace, crashed.run.runId)).toMatchObject({
          outcome: 'failed',
          finishedTime: T0 + 3 * MINUTE,
          error: { code: 'lost', message: LOST_RUN_MESSAGE },
        });

        const abandoned = manual(swept);
        await repository.claimRun(abandoned, T0 + 1_000);
        expect(await repository.releaseLostRuns(T0 + MINUTE)).toBe(0);
        expect(await repository.releaseLostRuns(T0 + 10 * MINUTE)).toBeGreaterThanOrEqual(2);
        expect(await repository.getRun(workspace, abandoned.run.runId)).toMatchObject({
          outcome: 'failed',
          error: { code: 'lost' },
        });
        expect(await repository.get(workspace, swept.automationId)).toMatchObject({ runningRunId: null });
        expect(await repository.getRun(workspace, next.run.runId)).toMatchObject({ outcome: 'failed' });
      });

      it('keeps the newest runs only', async () => {
        const stored = automation();
        await repository.insert(stored);
        const ids: string[] = [];
        for (let index = 0; index < 4; index += 1) {
          const claim = { ...manual(stored, T0 + index * MINUTE), runsKept: 3 };
          ids.push(claim.run.runId);
          await repository.claimRun(claim, T0 + index * MINUTE);
          await repository.releaseRun(workspace, stored.automationId, claim.run.runId);
        }
        expect((await repository.listRuns(workspace, stored.automationId, 10)).map((run) => run.runId)).toEqual(
          ids.slice(1).reverse(),
        );
      });
    });

    describe('runs', () => {
      it('records outcomes, adds usage across a run and its resumes, and finds a run by its thread', async () => {
        const stored = automation();
        await repository.insert(stored);
        const claim = manual(stored);
        await repository.claimRun(claim, T0 + 1_000);
        await repository.recordOutcome(workspace, claim.run.runId, {
          outcome: 'interrupted',
          finishedTime: null,
          usage: usage(0.01),
          error: null,
          threadId: 'ai_thread1',
        });
        expect(await repository.getRun(workspace, claim.run.runId)).toMatchObject({
          outcome: 'interrupted',
          threadId: 'ai_thread1',
          finishedTime: null,
          usage: usage(0.01),
        });
        expect((await repository.findRunByThread(workspace, 'ai_thread1'))?.runId).toBe(claim.run.runId);
        expect(await repository.findRunByThread(`${workspace}-other`, 'ai_thread1')).toBeNull();

        await repository.recordOutcome(workspace, claim.run.runId, {
          outcome: 'completed',
          finishedTime: T0 + 5 * MINUTE,
          usage: usage(0.02, 200),
          error: null,
        });
        const run = await repository.getRun(workspace, claim.run.runId);
        expect(run).toMatchObject({
          outcome: 'completed',
          threadId: 'ai_thread1',
          finishedTime: T0 + 5 * MINUTE,
          error: null,
        });
        expect(run?.usage.promptTokens).toBe(300);
        expect(run?.usage.llmCalls).toBe(2);
        expect(run?.usage.costUsd).toBeCloseTo(0.03, 10);

        await repository.recordOutcome(workspace, claim.run.runId, {
          outcome: 'failed',
          finishedTime: T0 + 6 * MINUTE,
          usage: usage(0, 0),
          error: { code: 'server_error', message: 'The AI service is temporarily unavailable.' },
        });
        expect(await repository.getRun(workspace, claim.run.runId)).toMatchObject({
          outcome: 'failed',
          error: { code: 'server_error', message: 'The AI service is temporarily unavailable.' },
        });
      });

      it('lists runs newest first, the latest of several automations, and the cost since a time', async () => {
        const first = automation();
        const second = automation();
        const idle = automation();
        for (const item of [first, second, idle]) await repository.insert(item);
        const runs: RunClaim[] = [];
        for (const [index, owner] of [first, first, second].entries()) {
          const claim = manual(owner, T0 + index * MINUTE);
          runs.push(claim);
          await repository.claimRun(claim, T0 + index * MINUTE);
          await repository.recordOutcome(workspace, claim.run.runId, {
            outcome: 'completed',
            finishedTime: T0 + index * MINUTE + 1,
            usage: usage(0.25 * (index + 1)),
            error: null,
          });
          await repository.releaseRun(workspace, owner.automationId, claim.run.runId);
        }
        expect((await repository.listRuns(workspace, first.automationId, 10)).map((run) => run.runId)).toEqual([
          runs[1].run.runId,
          runs[0].run.runId,
        ]);
        expect((await repository.listRuns(workspace, first.automationId, 1)).map((run) => run.runId)).toEqual([
          runs[1].run.runId,
        ]);
        const latest = await repository.latestRuns(workspace, [
          first.automationId,
          second.automationId,
          idle.automationId,
        ]);
        expect(latest.map((run) => run.runId).sort()).toEqual([runs[1].run.runId, runs[2].run.runId].sort());
        expect(await repository.latestRuns(workspace, [])).toEqual([]);
        expect(await repository.costSince(workspace, first.automationId, T0)).toBeCloseTo(0.75, 10);
        expect(await repository.costSince(workspace, first.automationId, T0 + 30_000)).toBeCloseTo(0.5, 10);
        expect(await repository.costSince(workspace, idle.automationId, T0)).toBe(0);
        expect(await repository.costSince(`${workspace}-other`, first.automationId, T0)).toBe(0);
      });
    });
  });
}

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
const DAY = 24 * 60 * MINUTE;
/** The month T0 falls in, as the runner computes it (`YYYY-MM`, the automation's zone). */
const MONTH = '2027-01';
/** Limits no test reaches unless it means to. */
const NO_LIMITS = { total: 1_000_000, perWorkspace: 1_000_000 };
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
 * atomic claims (one winner per slot) within the run limits, one run at a time with a lease, lost runs,
 * run records guarded by their state, the monthly spend, and what the retention reads. Each test works
 * in workspaces of its own.
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
      disabledReason: null,
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
      limits: NO_LIMITS,
      ...overrides,
    });

    const manual = (stored: StoredAutomation, startedTime = T0 + 1_000): RunClaim => ({
      workspace: stored.workspace,
      automationId: stored.automationId,
      run: { runId: `run_${randomUUID().replace(/-/g, '')}`, trigger: 'manual', slotTime: null, startedTime },
      leaseExpiresAt: startedTime + 2 * MINUTE,
      limits: NO_LIMITS,
    });

    /** A run claimed now (manual), ended with `outcome`, released: its record only remains. */
    const ranAt = async (
      stored: StoredAutomation,
      startedTime: number,
      outcome: 'completed' | 'interrupted' | 'failed' = 'completed',
      threadId?: string,
    ): Promise<string> => {
      const claim = manual(stored, startedTime);
      expect((await repository.claimRun(claim, startedTime)).claimed).toBe(true);
      await repository.recordOutcome(workspace, claim.run.runId, {
        outcome,
        finishedTime: outcome === 'interrupted' ? null : startedTime + 1,
        usage: usage(0),
        spendMonth: MONTH,
        error: null,
        ...(threadId ? { threadId } : {}),
      });
      await repository.releaseRun(workspace, stored.automationId, claim.run.runId);
      return claim.run.runId;
    };

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
        expect(await repository.listDue(T0 + 1_000, 1000, 1000)).not.toContainEqual(
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
        const due = (await repository.listDue(T0 + MINUTE, 1000, 1000)).filter((item) => item.workspace === workspace);
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

      it('lists neither busy automations nor more of a workspace than it may still start, so neither starves the others', async () => {
        const busy = automation({ nextRunTime: T0 - 2 * MINUTE });
        await repository.insert(busy);
        expect((await repository.claimRun(manual(busy, T0), T0)).claimed).toBe(true);
        const crowd = Array.from({ length: 4 }, (_, index) => automation({ nextRunTime: T0 - MINUTE + index }));
        for (const item of crowd) await repository.insert(item);
        const ours = async (perWorkspace: number) =>
          (await repository.listDue(T0 + MINUTE, 1000, perWorkspace))
            .filter((item) => item.workspace === workspace)
            .map((item) => item.automationId);
        // One run in progress (busy's): with 3 per workspace, 2 more may start, the earliest first.
        expect(await ours(3)).toEqual([crowd[0].automationId, crowd[1].automationId]);
        expect(await ours(1)).toEqual([]);
        expect(await ours(100)).toEqual(crowd.map((item) => item.automationId));
        // Once its lease ran out, the busy one is listed again (its run is lost).
        expect(await repository.listDue(T0 + 10 * MINUTE, 1000, 100)).toContainEqual(
          expect.objectContaining({ automationId: busy.automationId }),
        );
      });

      it('claims within the run limits, of the workspace and of the service; a refused slot stays due', async () => {
        const [first, second, third] = [automation(), automation(), automation()];
        for (const item of [first, second, third]) await repository.insert(item);
        // Far from T0: the leases other tests left have run out (a shared store counts every workspace).
        const now = T0 + 30 * DAY;
        const limits = { total: 1_000_000, perWorkspace: 2 };
        const claim = (stored: StoredAutomation, claimLimits = limits) =>
          repository.claimRun(
            scheduled(stored, {
              run: {
                runId: `run_${randomUUID().replace(/-/g, '')}`,
                trigger: 'schedule',
                slotTime: T0,
                startedTime: now,
              },
              leaseExpiresAt: now + 2 * MINUTE,
              limits: claimLimits,
            }),
            now,
          );
        expect((await claim(first)).claimed).toBe(true);
        expect((await claim(second)).claimed).toBe(true);
        expect(await claim(third)).toEqual({ claimed: false, reason: 'limited', scope: 'workspace' });
        expect((await repository.get(workspace, third.automationId))?.nextRunTime).toBe(T0);
        expect(await claim(third, { total: 2, perWorkspace: 10 })).toEqual({
          claimed: false,
          reason: 'limited',
          scope: 'service',
        });
        await repository.releaseRun(
          workspace,
          first.automationId,
          (await repository.get(workspace, first.automationId))!.runningRunId!,
        );
        expect((await claim(third)).claimed).toBe(true);
      });

      it('disables an automation whose schedule fires no more, saying why in its state', async () => {
        const stored = automation();
        await repository.insert(stored);
        const claimed = await repository.claimRun(
          scheduled(stored, { nextRunTime: null, disabledReason: 'The schedule cannot be read any more' }),
          T0 + 1_000,
        );
        expect(claimed).toMatchObject({
          claimed: true,
          automation: { enabled: false, nextRunTime: null, disabledReason: 'The schedule cannot be read any more' },
        });
        expect(await repository.get(workspace, stored.automationId)).toMatchObject({
          enabled: false,
          disabledReason: 'The schedule cannot be read any more',
        });
        const enabled = await repository.update(
          workspace,
          stored.automationId,
          { enabled: true, nextRunTime: T0 + DAY, disabledReason: null },
          T0 + 2_000,
        );
        expect(enabled).toMatchObject({ enabled: true, disabledReason: null });
      });
    });

    describe('spend and retention', () => {
      it("keeps a month's spend whatever runs are deleted: every run's and resume's cost counts, in the month it was spent", async () => {
        const stored = automation();
        await repository.insert(stored);
        const claim = manual(stored);
        await repository.claimRun(claim, T0 + 1_000);
        await repository.recordOutcome(workspace, claim.run.runId, {
          outcome: 'interrupted',
          finishedTime: null,
          usage: usage(0.25),
          spendMonth: MONTH,
          error: null,
        });
        // The resume of the interrupted run, later that month, adds its own.
        await repository.recordOutcome(workspace, claim.run.runId, {
          outcome: 'completed',
          finishedTime: T0 + DAY,
          usage: usage(0.5),
          spendMonth: MONTH,
          error: null,
        });
        expect(await repository.monthSpend(workspace, stored.automationId, MONTH)).toBeCloseTo(0.75, 10);
        // The retention deletes the run: the month's spend stays.
        expect(await repository.deleteRuns(workspace, [claim.run.runId])).toBe(1);
        expect(await repository.getRun(workspace, claim.run.runId)).toBeNull();
        expect(await repository.monthSpend(workspace, stored.automationId, MONTH)).toBeCloseTo(0.75, 10);
        expect(await repository.monthSpend(workspace, stored.automationId, '2027-02')).toBe(0);
        expect(await repository.monthSpend(`${workspace}-other`, stored.automationId, MONTH)).toBe(0);
        await repository.delete(workspace, stored.automationId);
        expect(await repository.monthSpend(workspace, stored.automationId, MONTH)).toBe(0);
      });

      it('never lets a late end overwrite a run recorded lost, yet counts what it spent', async () => {
        const stored = automation();
        await repository.insert(stored);
        const stalled = manual(stored);
        await repository.claimRun(stalled, T0 + 1_000);
        // Another instance takes the automation over after the lease ran out.
        expect((await repository.claimRun(manual(stored, T0 + 10 * MINUTE), T0 + 10 * MINUTE)).claimed).toBe(true);
        const written = await repository.recordOutcome(workspace, stalled.run.runId, {
          outcome: 'completed',
          finishedTime: T0 + 11 * MINUTE,
          usage: usage(0.4),
          spendMonth: MONTH,
          error: null,
          threadId: 'ai_stalled',
        });
        expect(written).toBe(false);
        expect(await repository.getRun(workspace, stalled.run.runId)).toMatchObject({
          outcome: 'failed',
          error: { code: 'lost' },
          usage: { costUsd: 0.4 },
        });
        expect(await repository.monthSpend(workspace, stored.automationId, MONTH)).toBeCloseTo(0.4, 10);
        expect(
          await repository.recordOutcome(workspace, 'run_missing', {
            outcome: 'completed',
            finishedTime: T0,
            usage: usage(1),
            spendMonth: MONTH,
            error: null,
          }),
        ).toBe(false);
      });

      it('lists interrupted runs (newest first, and the stale ones of every workspace) for their expiry', async () => {
        const stored = automation();
        await repository.insert(stored);
        const old = await ranAt(stored, T0, 'interrupted', 'ai_old');
        const done = await ranAt(stored, T0 + MINUTE);
        const recent = await ranAt(stored, T0 + 2 * MINUTE, 'interrupted', 'ai_recent');
        expect((await repository.interruptedRuns(workspace, stored.automationId)).map((run) => run.runId)).toEqual([
          recent,
          old,
        ]);
        const stale = (await repository.staleInterruptedRuns(T0 + MINUTE, 1000)).filter(
          (run) => run.workspace === workspace,
        );
        expect(stale.map((run) => run.runId)).toEqual([old]);
        expect(stale.map((run) => run.runId)).not.toContain(done);
      });

      it('names the runs the retention deletes: too old, or beyond the newest kept; never a running or interrupted one', async () => {
        const stored = automation();
        await repository.insert(stored);
        const ancient = await ranAt(stored, T0 - 40 * DAY, 'completed', 'ai_ancient');
        const waiting = await ranAt(stored, T0 - 39 * DAY, 'interrupted', 'ai_waiting');
        const ids: string[] = [];
        for (let index = 0; index < 4; index += 1) ids.push(await ranAt(stored, T0 + index * MINUTE));
        const running = manual(stored, T0 + 10 * MINUTE);
        await repository.claimRun(running, T0 + 10 * MINUTE);
        const ours = async (kept: number) =>
          (await repository.expiredRuns(T0 - 30 * DAY, kept, 1000))
            .filter((run) => run.workspace === workspace)
            .map((run) => run.runId)
            .sort();
        expect(await ours(100)).toEqual([ancient]);
        // The newest 3 are kept (the running one among them): the rest but the waiting one go.
        expect(await ours(3)).toEqual([ancient, ids[0], ids[1]].sort());
        expect(await ours(3)).not.toContain(waiting);
        const [expired] = (await repository.expiredRuns(T0 - 30 * DAY, 100, 1000)).filter(
          (run) => run.workspace === workspace,
        );
        expect(expired).toEqual({
          workspace,
          automationId: stored.automationId,
          runId: ancient,
          threadId: 'ai_ancient',
        });
        expect(await repository.deleteRuns(`${workspace}-other`, [ancient])).toBe(0);
        expect(await repository.deleteRuns(workspace, [ancient, ids[0]])).toBe(2);
        expect(await repository.deleteRuns(workspace, [])).toBe(0);
        expect((await repository.listRuns(workspace, stored.automationId, 100)).map((run) => run.runId)).not.toContain(
          ancient,
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
          spendMonth: MONTH,
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
          spendMonth: MONTH,
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
          spendMonth: MONTH,
          error: { code: 'server_error', message: 'The AI service is temporarily unavailable.' },
        });
        expect(await repository.getRun(workspace, claim.run.runId)).toMatchObject({
          outcome: 'failed',
          error: { code: 'server_error', message: 'The AI service is temporarily unavailable.' },
        });

        await repository.recordOutcome(workspace, claim.run.runId, {
          outcome: 'skipped_too_large',
          finishedTime: T0 + 7 * MINUTE,
          spendMonth: MONTH,
          usage: usage(0, 0),
          error: { code: 'too_large', message: 'Not sent: its prompt was about 40,000 tokens' },
        });
        expect(await repository.getRun(workspace, claim.run.runId)).toMatchObject({
          outcome: 'skipped_too_large',
          error: { code: 'too_large' },
        });
      });

      it("lists runs newest first, the latest of several automations, and each month's spend", async () => {
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
            spendMonth: index === 0 ? '2026-12' : MONTH,
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
        expect(await repository.monthSpend(workspace, first.automationId, '2026-12')).toBeCloseTo(0.25, 10);
        expect(await repository.monthSpend(workspace, first.automationId, MONTH)).toBeCloseTo(0.5, 10);
        expect(await repository.monthSpend(workspace, second.automationId, MONTH)).toBeCloseTo(0.75, 10);
        expect(await repository.monthSpend(workspace, idle.automationId, MONTH)).toBe(0);
        expect(await repository.monthSpend(`${workspace}-other`, first.automationId, MONTH)).toBe(0);
      });
    });
  });
}

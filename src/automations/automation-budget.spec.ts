import { TokenTracker } from '../providers/token.tracker';
import { EMPTY_USAGE } from '../threads/thread.types';
import type { StoredAutomation } from './automation';
import { AutomationBudget } from './automation-budget';
import type { AutomationRepository } from './automation.repository';

const automation = (overrides: Partial<StoredAutomation> = {}): StoredAutomation => ({
  automationId: 'aut_1',
  workspace: 'w',
  userId: 'u',
  userRole: 'editor',
  name: 'n',
  graphKey: 'g',
  prompt: 'p',
  schedule: { cron: '0 9 * * *', timezone: 'Europe/Paris' },
  enabled: true,
  nextRunTime: null,
  runningRunId: null,
  runLeaseExpiresAt: null,
  createdTime: 0,
  updatedTime: 0,
  ...overrides,
});

/** A store whose runs cost `spent` since the time asked; remembers the time. */
function runsCosting(spent: number): AutomationRepository & { since?: number } {
  const store = {
    since: undefined as number | undefined,
    costSince: async (_workspace: string, _automationId: string, since: number) => {
      store.since = since;
      return spent;
    },
  };
  return store as unknown as AutomationRepository & { since?: number };
}

const cost = (costUsd: number) => ({ ...EMPTY_USAGE, costUsd });

describe(AutomationBudget.name, () => {
  const now = Date.parse('2026-03-15T10:00:00Z');

  it("counts the month of the automation's time zone", async () => {
    const runs = runsCosting(0);
    await AutomationBudget.of(automation({ maxCostUsdPerMonth: 1 }), runs, Date.parse('2026-03-31T22:30:00Z'), 'en');
    // 00:30 on April 1st in Paris: April's budget.
    expect(runs.since).toBe(Date.parse('2026-03-31T22:00:00Z'));
  });

  it("refuses a run when the month is spent, the per-run cap is 0, or the service's budget is spent", async () => {
    const tokens = new TokenTracker();
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerMonth: 1 }), runsCosting(0.99), now, 'en')).refusal(tokens),
    ).toBeNull();
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerMonth: 1 }), runsCosting(1), now, 'en')).refusal(tokens),
    ).toMatchObject({
      code: 'budget_exceeded',
      message: expect.stringMatching(/monthly budget is spent/),
    });
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerRun: 0 }), runsCosting(0), now, 'en')).refusal(tokens),
    ).toMatchObject({ message: expect.stringMatching(/maxCostUsdPerRun is 0/) });
    const spentService = new TokenTracker({ limits: { maxTotalTokens: 10 } });
    spentService.record(
      { promptTokens: 10, completionTokens: 1, cachedTokens: 0, totalTokens: 11 },
      { provider: 'openai', model: 'm' },
    );
    expect((await AutomationBudget.of(automation(), runsCosting(0), now, 'en')).refusal(spentService)).toMatchObject({
      message: expect.stringMatching(/service's budget is spent/),
    });
  });

  it('stops a run before a call once the run or the month reached its cap', async () => {
    const perRun = await AutomationBudget.of(automation({ maxCostUsdPerRun: 0.5 }), runsCosting(0), now, 'en');
    expect(() => perRun.assertWithin(cost(0.49))).not.toThrow();
    expect(() => perRun.assertWithin(cost(0.5))).toThrow(expect.objectContaining({ code: 'budget_exceeded' }));
    const monthly = await AutomationBudget.of(automation({ maxCostUsdPerMonth: 2 }), runsCosting(1.5), now, 'en');
    expect(() => monthly.assertWithin(cost(0.4))).not.toThrow();
    expect(() => monthly.assertWithin(cost(0.5))).toThrow(expect.objectContaining({ code: 'budget_exceeded' }));
    const none = await AutomationBudget.of(automation(), runsCosting(0), now, 'en');
    expect(() => none.assertWithin(cost(1_000))).not.toThrow();
  });
});

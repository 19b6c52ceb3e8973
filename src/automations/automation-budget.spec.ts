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
  disabledReason: null,
  runningRunId: null,
  runLeaseExpiresAt: null,
  createdTime: 0,
  updatedTime: 0,
  ...overrides,
});

/** A store whose automation spent `spent` in the month asked; remembers the month. */
function runsCosting(spent: number): AutomationRepository & { month?: string } {
  const store = {
    month: undefined as string | undefined,
    monthSpend: async (_workspace: string, _automationId: string, month: string) => {
      store.month = month;
      return spent;
    },
  };
  return store as unknown as AutomationRepository & { month?: string };
}

const PRICED = { provider: 'openai', model: 'gpt-4o', priced: true };

const cost = (costUsd: number) => ({ ...EMPTY_USAGE, costUsd });

describe(AutomationBudget.name, () => {
  const now = Date.parse('2026-03-15T10:00:00Z');

  it("counts the month of the automation's time zone", async () => {
    const runs = runsCosting(0);
    await AutomationBudget.of(automation({ maxCostUsdPerMonth: 1 }), runs, Date.parse('2026-03-31T22:30:00Z'), 'en');
    // 00:30 on April 1st in Paris: April's budget.
    expect(runs.month).toBe('2026-04');
  });

  it("refuses a run when the month is spent, the per-run cap is 0, or the service's budget is spent", async () => {
    const tokens = new TokenTracker();
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerMonth: 1 }), runsCosting(0.99), now, 'en')).refusal(
        tokens,
        PRICED,
      ),
    ).toBeNull();
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerMonth: 1 }), runsCosting(1), now, 'en')).refusal(
        tokens,
        PRICED,
      ),
    ).toMatchObject({
      code: 'budget_exceeded',
      message: expect.stringMatching(/monthly budget is spent/),
    });
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerRun: 0 }), runsCosting(0), now, 'en')).refusal(
        tokens,
        PRICED,
      ),
    ).toMatchObject({ message: expect.stringMatching(/maxCostUsdPerRun is 0/) });
    const spentService = new TokenTracker({ limits: { maxTotalTokens: 10 } });
    spentService.record(
      { promptTokens: 10, completionTokens: 1, cachedTokens: 0, totalTokens: 11 },
      { provider: 'openai', model: 'm' },
    );
    expect(
      (await AutomationBudget.of(automation(), runsCosting(0), now, 'en')).refusal(spentService, PRICED),
    ).toMatchObject({
      message: expect.stringMatching(/service's budget is spent/),
    });
  });

  it('refuses a run with a cost budget whose model has no price (it would count $0 a call), and no other', async () => {
    const tokens = new TokenTracker();
    const unpriced = { provider: 'openai-compatible', model: 'my-finetune', priced: false };
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerMonth: 5 }), runsCosting(0), now, 'en')).refusal(
        tokens,
        unpriced,
      ),
    ).toMatchObject({ code: 'budget_unpriced', message: expect.stringContaining('"my-finetune"') });
    expect(
      (await AutomationBudget.of(automation({ maxCostUsdPerRun: 1 }), runsCosting(0), now, 'en')).refusal(
        tokens,
        unpriced,
      ),
    ).toMatchObject({ code: 'budget_unpriced' });
    expect((await AutomationBudget.of(automation(), runsCosting(0), now, 'en')).refusal(tokens, unpriced)).toBeNull();
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

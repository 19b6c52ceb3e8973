import type { Locale } from '../config/app-config';
import { AppError } from '../errors/app-error';
import { TokenLimitError } from '../providers/token-limit.error';
import type { TokenTracker } from '../providers/token.tracker';
import type { UsageTotals } from '../threads/thread.types';
import type { StoredAutomation } from './automation';
import type { AutomationRepository } from './automation.repository';
import { zonedPeriod } from './schedule/zoned-calendar';

/** Why a run may not start: recorded as its error when it is skipped_budget. */
export interface BudgetRefusal {
  code: 'budget_exceeded';
  message: string;
}

/**
 * An automation's budgets (docs/automations.md, "Budgets"), on top of the service's (AI_MAX_TOTAL_TOKENS,
 * AI_MAX_COST_USD, as for chat): `maxCostUsdPerRun` caps one run, `maxCostUsdPerMonth` the runs started
 * in the current calendar month of the automation's time zone. Before a run: a spent budget (the
 * service's, the month's, or a per-run cap of 0) means no run at all (skipped_budget, no upstream
 * call). During a run: checked before every upstream call; reaching a cap stops it with budget_exceeded.
 */
export class AutomationBudget {
  private constructor(
    private readonly automation: StoredAutomation,
    /** Spent this month by the automation's earlier runs. */
    private readonly spentThisMonth: number,
    private readonly locale: Locale,
    /** Spent by this run before (a resume of its interrupt goes on with what it had spent). */
    private readonly spentByRun = 0,
  ) {}

  /**
   * The budget of a run starting at `now`, read from the runs of the automation's current month; `spentByRun`: what
   * the run spent before, for the resume of its interrupt (counted in the month already).
   */
  static async of(
    automation: StoredAutomation,
    runs: AutomationRepository,
    now: number,
    locale: Locale,
    spentByRun = 0,
  ): Promise<AutomationBudget> {
    const month = zonedPeriod(now, automation.schedule.timezone, 'MONTH', 0);
    const spent =
      automation.maxCostUsdPerMonth === undefined
        ? 0
        : await runs.costSince(automation.workspace, automation.automationId, month.startTime);
    return new AutomationBudget(automation, spent, locale, spentByRun);
  }

  /** Why the run may not start, or null. */
  refusal(tokens: TokenTracker): BudgetRefusal | null {
    try {
      tokens.assertWithinBudget();
    } catch (error) {
      if (error instanceof AppError && error.code === 'budget_exceeded')
        return { code: 'budget_exceeded', message: `The service's budget is spent: ${error.message}` };
      throw error;
    }
    const { maxCostUsdPerRun, maxCostUsdPerMonth } = this.automation;
    if (maxCostUsdPerRun === 0)
      return { code: 'budget_exceeded', message: 'maxCostUsdPerRun is 0: no run may spend anything' };
    if (maxCostUsdPerMonth !== undefined && this.spentThisMonth >= maxCostUsdPerMonth) {
      return {
        code: 'budget_exceeded',
        message: `The monthly budget is spent: $${round(this.spentThisMonth)} of $${maxCostUsdPerMonth} this month`,
      };
    }
    return null;
  }

  /** Throws budget_exceeded when the run, at `usage` so far, may make no further upstream call. */
  readonly assertWithin = (usage: UsageTotals): void => {
    const { maxCostUsdPerRun, maxCostUsdPerMonth } = this.automation;
    if (maxCostUsdPerRun !== undefined && this.spentByRun + usage.costUsd >= maxCostUsdPerRun) {
      throw new TokenLimitError('cost', maxCostUsdPerRun, this.spentByRun + usage.costUsd, this.locale);
    }
    if (maxCostUsdPerMonth !== undefined && this.spentThisMonth + usage.costUsd >= maxCostUsdPerMonth) {
      throw new TokenLimitError('cost', maxCostUsdPerMonth, this.spentThisMonth + usage.costUsd, this.locale);
    }
  };
}

function round(value: number): string {
  return value.toFixed(value >= 1 ? 2 : 6);
}

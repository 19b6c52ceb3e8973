import type { Locale } from '../config/app-config';
import { AppError } from '../errors/app-error';
import { unpricedModelMessage } from '../providers/model-price.resolver';
import { TokenLimitError } from '../providers/token-limit.error';
import type { TokenTracker } from '../providers/token.tracker';
import type { UsageTotals } from '../threads/thread.types';
import type { StoredAutomation } from './automation';
import type { AutomationRepository } from './automation.repository';
import { zonedMonth } from './schedule/zoned-calendar';

/** Why a run may not start: recorded as its error when it is skipped_budget. */
export interface BudgetRefusal {
  code: 'budget_exceeded' | 'budget_unpriced';
  message: string;
}

/** The model a run would call and whether its calls have a price (ModelPriceResolver). */
export interface RunModel {
  provider: string;
  model: string;
  priced: boolean;
}

/** Whether the automation has a cost budget, which only a priced model can be held to. */
export function hasCostBudget(automation: Pick<StoredAutomation, 'maxCostUsdPerRun' | 'maxCostUsdPerMonth'>): boolean {
  return automation.maxCostUsdPerRun !== undefined || automation.maxCostUsdPerMonth !== undefined;
}

/**
 * An automation's budgets, on top of the service's (AI_MAX_TOTAL_TOKENS,
 * AI_MAX_COST_USD, as for chat): `maxCostUsdPerRun` caps one run, `maxCostUsdPerMonth` what its runs
 * spend in the current calendar month of the automation's time zone: a counter per month that every
 * recorded usage adds to (a run's, a resume's) and that the retention of runs never lowers. Before a
 * run: a spent budget (the service's, the month's, or a per-run cap of 0), or a cost budget on a model
 * without a price, means no run at all (skipped_budget, no upstream call). During a run: checked before
 * every upstream call; reaching a cap stops it with budget_exceeded.
 */
export class AutomationBudget {
  private constructor(
    private readonly automation: StoredAutomation,
    /** Spent this month by the automation's runs so far. */
    private readonly spentThisMonth: number,
    private readonly locale: Locale,
    /** Spent by this run before (a resume of its interrupt goes on with what it had spent). */
    private readonly spentByRun = 0,
  ) {}

  /**
   * The budget of a run starting at `now`, read from the automation's spend of its current month; `spentByRun`: what
   * the run spent before, for the resume of its interrupt (counted in the month already).
   */
  static async of(
    automation: StoredAutomation,
    runs: AutomationRepository,
    now: number,
    locale: Locale,
    spentByRun = 0,
  ): Promise<AutomationBudget> {
    const spent =
      automation.maxCostUsdPerMonth === undefined
        ? 0
        : await runs.monthSpend(
            automation.workspace,
            automation.automationId,
            zonedMonth(now, automation.schedule.timezone),
          );
    return new AutomationBudget(automation, spent, locale, spentByRun);
  }

  /** Why the run may not start, or null. */
  refusal(tokens: TokenTracker, model: RunModel): BudgetRefusal | null {
    try {
      tokens.assertWithinBudget();
    } catch (error) {
      if (error instanceof AppError && error.code === 'budget_exceeded')
        return { code: 'budget_exceeded', message: `The service's budget is spent: ${error.message}` };
      throw error;
    }
    const { maxCostUsdPerRun, maxCostUsdPerMonth } = this.automation;
    if (hasCostBudget(this.automation) && !model.priced)
      return { code: 'budget_unpriced', message: unpricedModelMessage(model.provider, model.model) };
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

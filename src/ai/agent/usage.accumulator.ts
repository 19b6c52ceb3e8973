import { LlmUsage } from '../../providers/llm-usage';
import type { UsageTotals } from '../../threads/thread.types';
import { UsageReport } from './agent-result';

/**
 * The upstream usage of one request (every call of every round), kept outside the loop so the
 * caller still has it when the run fails or is aborted: usage is never lost.
 */
export class UsageAccumulator {
  private promptTokens = 0;
  private completionTokens = 0;
  private cachedTokens = 0;
  private totalTokens = 0;
  private costUsd = 0;
  private llmCalls = 0;
  private estimated = false;

  /** One upstream call; `estimated` when the figures come from the tokenizer, not the provider. */
  add(usage: LlmUsage, costUsd: number, estimated = false): void {
    this.promptTokens += usage.promptTokens;
    this.completionTokens += usage.completionTokens;
    this.cachedTokens += usage.cachedTokens;
    this.totalTokens += usage.totalTokens || usage.promptTokens + usage.completionTokens;
    this.costUsd += costUsd;
    this.llmCalls += 1;
    this.estimated ||= estimated;
  }

  get calls(): number {
    return this.llmCalls;
  }

  get isEmpty(): boolean {
    return this.llmCalls === 0;
  }

  /** What the thread and the workspace add up. */
  totals(): UsageTotals {
    return {
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      cachedTokens: this.cachedTokens,
      totalTokens: this.totalTokens,
      costUsd: Math.round(this.costUsd * 1e8) / 1e8,
      llmCalls: this.llmCalls,
    };
  }

  /** What the answer reports: the totals, flagged when part of them was estimated. */
  report(): UsageReport {
    return { ...this.totals(), ...(this.estimated ? { estimated: true } : {}) };
  }
}

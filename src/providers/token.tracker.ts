import type { Locale } from '../config/app-config';
import type { ProviderPricing } from '../config/provider-registry';
import { AiEventLogger } from '../observability/ai-event.logger';
import { Logger } from '../observability/logger';
import { LlmUsage } from './llm-usage';
import { TokenLimitError, TokenLimitKind } from './token-limit.error';

const logger = new Logger('tokens');
const MILLION = 1_000_000;
const ZERO_PRICING: ProviderPricing = { inputPerMillion: 0, inputCacheHitPerMillion: 0, outputPerMillion: 0 };
/** Recent entries kept for formatSummary and inspection; totals are exact regardless. */
const MAX_ENTRIES = 1000;
/** Threads/workspaces with totals kept; the oldest are dropped first (process-lifetime counters). */
const MAX_SCOPES = 10_000;

/** 0 means unlimited (AI_MAX_TOKENS_PER_CALL, AI_MAX_TOTAL_TOKENS, AI_MAX_COST_USD). */
export interface TokenLimits {
  maxTokensPerCall: number;
  maxTotalTokens: number;
  maxCostUsd: number;
}

export interface TokenLimitExceeded {
  kind: TokenLimitKind;
  limit: number;
  actual: number;
  entry?: TokenCostEntry;
}

export interface TokenUsageMeta {
  provider: string;
  model: string;
  threadId?: string;
  workspace?: string;
  /**
   * The call's price when the provider knows it (a workspace configuration's provider: ModelPriceResolver);
   * null: known to have none; absent: priced by provider and model (pricingFor).
   */
  pricing?: ProviderPricing | null;
}

export interface TokenCostEntry extends Omit<TokenUsageMeta, 'pricing'> {
  kind: 'chat' | 'embedding';
  /** False when no price applied to the model: its cost is counted 0 and logged as unknown. */
  priced: boolean;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  costUsd: number;
  time: number;
}

export interface TokenTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  costUsd: number;
}

export interface TokenTrackerOptions {
  /** The price of a model of a registry provider (ModelPriceResolver); none: the call is counted 0 and logged unpriced. */
  pricingFor?: (provider: string, model: string) => ProviderPricing | null | undefined;
  limits?: Partial<TokenLimits>;
  onLimitExceeded?: (exceeded: TokenLimitExceeded) => void;
  /** Called with every recorded entry, chat and embedding alike (metrics). */
  onRecord?: (entry: TokenCostEntry) => void;
  locale?: Locale;
  events?: AiEventLogger;
  now?: () => number;
}

function emptyTotals(): TokenTotals {
  return { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, totalTokens: 0, costUsd: 0 };
}

function addTo(totals: TokenTotals, entry: TokenCostEntry): void {
  totals.calls += 1;
  totals.promptTokens += entry.promptTokens;
  totals.completionTokens += entry.completionTokens;
  totals.cachedTokens += entry.cachedTokens;
  totals.totalTokens += entry.totalTokens;
  totals.costUsd += entry.costUsd;
}

function formatUsd(value: number): string {
  return `$${value.toFixed(value >= 1 ? 2 : 6)}`;
}

/**
 * Token and cost accounting: cache-aware cost per call at its model's price
 * (ModelPriceResolver: a configuration's own, config/model-prices.json, the registry entry's), totals per thread and per workspace, and the limits of AI_MAX_*. One instance per
 * process (ProvidersModule); the agent records each call's usage and asks assertWithinBudget()
 * before the next upstream call.
 */
export class TokenTracker {
  private readonly pricingFor: (provider: string, model: string) => ProviderPricing | null | undefined;
  /** provider/model pairs already reported unpriced (once per process). */
  private readonly unpricedReported = new Set<string>();
  private readonly limits: TokenLimits;
  private readonly locale: Locale;
  private readonly events: AiEventLogger;
  private readonly now: () => number;
  private limitListener: ((exceeded: TokenLimitExceeded) => void) | undefined;
  private readonly recordListener: ((entry: TokenCostEntry) => void) | undefined;
  private totals: TokenTotals = emptyTotals();
  private recent: TokenCostEntry[] = [];
  private readonly byThread = new Map<string, TokenTotals>();
  private readonly byWorkspace = new Map<string, TokenTotals>();

  constructor(options: TokenTrackerOptions = {}) {
    this.pricingFor = options.pricingFor ?? (() => undefined);
    this.limits = { maxTokensPerCall: 0, maxTotalTokens: 0, maxCostUsd: 0, ...options.limits };
    this.limitListener = options.onLimitExceeded;
    this.recordListener = options.onRecord;
    this.locale = options.locale ?? 'en';
    this.events = options.events ?? new AiEventLogger('tokens');
    this.now = options.now ?? Date.now;
  }

  /** Cost in USD: (prompt − cached) × input + cached × cache-hit + completion × output, per million. */
  static computeCost(
    usage: Pick<LlmUsage, 'promptTokens' | 'completionTokens' | 'cachedTokens'>,
    pricing: ProviderPricing,
  ): number {
    const cached = Math.min(Math.max(usage.cachedTokens, 0), usage.promptTokens);
    const uncached = usage.promptTokens - cached;
    return (
      (uncached * pricing.inputPerMillion +
        cached * pricing.inputCacheHitPerMillion +
        usage.completionTokens * pricing.outputPerMillion) /
      MILLION
    );
  }

  /**
   * What `promptTokens` of input would cost at a registry provider's price (none cached), in USD; null when its price
   * is unknown (a provider outside the registry, an openai-compatible endpoint).
   */
  estimateInputCost(provider: string, model: string, promptTokens: number): number | null {
    const pricing = this.pricingFor(provider, model);
    return pricing ? (promptTokens * pricing.inputPerMillion) / MILLION : null;
  }

  /** Replaces the limit callback (onLimitExceeded). */
  onLimitExceeded(listener: ((exceeded: TokenLimitExceeded) => void) | undefined): void {
    this.limitListener = listener;
  }

  /** Records one chat call; logs token_usage; calls onLimitExceeded for each limit it crosses. */
  record(usage: LlmUsage, { pricing: known, ...meta }: TokenUsageMeta): TokenCostEntry {
    const pricing = known === undefined ? this.pricingFor(meta.provider, meta.model) : known;
    if (!pricing) this.reportUnpriced(meta);
    const entry: TokenCostEntry = {
      ...meta,
      kind: 'chat',
      priced: Boolean(pricing),
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
      totalTokens: usage.totalTokens || usage.promptTokens + usage.completionTokens,
      costUsd: TokenTracker.computeCost(usage, pricing ?? ZERO_PRICING),
      time: this.now(),
    };
    this.add(entry);
    return entry;
  }

  /** Records an embedding call: input tokens only, at the embedding model's price per million. */
  recordEmbedding(
    inputTokens: number,
    model: string,
    pricePerMillion: number,
    meta: Partial<TokenUsageMeta> = {},
  ): TokenCostEntry {
    const entry: TokenCostEntry = {
      provider: meta.provider ?? 'embedding',
      ...meta,
      model,
      kind: 'embedding',
      priced: true,
      promptTokens: inputTokens,
      completionTokens: 0,
      cachedTokens: 0,
      totalTokens: inputTokens,
      costUsd: (inputTokens * pricePerMillion) / MILLION,
      time: this.now(),
    };
    this.add(entry);
    return entry;
  }

  /** Throws TokenLimitError when one call used more than AI_MAX_TOKENS_PER_CALL. */
  checkCallLimit(usage: Pick<LlmUsage, 'totalTokens'> | number): void {
    const tokens = typeof usage === 'number' ? usage : usage.totalTokens;
    const limit = this.limits.maxTokensPerCall;
    if (limit > 0 && tokens > limit) throw new TokenLimitError('per_call', limit, tokens, this.locale);
  }

  /** Throws TokenLimitError when the process-wide token or cost budget is spent (call before each upstream call). */
  assertWithinBudget(): void {
    const exceeded = this.exceededTotals()[0];
    if (exceeded) throw new TokenLimitError(exceeded.kind, exceeded.limit, exceeded.actual, this.locale);
  }

  getTotals(): TokenTotals {
    return { ...this.totals };
  }

  totalsForThread(threadId: string): TokenTotals {
    return { ...(this.byThread.get(threadId) ?? emptyTotals()) };
  }

  totalsForWorkspace(workspace: string): TokenTotals {
    return { ...(this.byWorkspace.get(workspace) ?? emptyTotals()) };
  }

  /** The most recent entries, oldest first (at most 1,000). */
  getEntries(): TokenCostEntry[] {
    return [...this.recent];
  }

  reset(): void {
    this.totals = emptyTotals();
    this.recent = [];
    this.byThread.clear();
    this.byWorkspace.clear();
  }

  /** One compact line: "deepseek/deepseek-chat 1200+300 tok (cached 1000) $0.000123". */
  formatEntry(entry: TokenCostEntry): string {
    const cached = entry.cachedTokens > 0 ? ` (cached ${entry.cachedTokens})` : '';
    return `${entry.provider}/${entry.model} ${entry.promptTokens}+${entry.completionTokens} tok${cached} ${formatUsd(entry.costUsd)}`;
  }

  /** A readable multi-line summary: totals, per-model lines, limits. */
  formatSummary(): string {
    const totals = this.totals;
    const lines = [
      `Token usage: ${totals.calls} call(s), ${totals.totalTokens} tokens ` +
        `(prompt ${totals.promptTokens}, cached ${totals.cachedTokens}, completion ${totals.completionTokens}), cost ${formatUsd(totals.costUsd)}`,
    ];
    const byModel = new Map<string, TokenTotals>();
    for (const entry of this.recent) {
      const key = `${entry.kind === 'embedding' ? 'embedding ' : ''}${entry.provider}/${entry.model}`;
      const bucket = byModel.get(key) ?? emptyTotals();
      addTo(bucket, entry);
      byModel.set(key, bucket);
    }
    for (const [key, bucket] of byModel) {
      lines.push(`  ${key}: ${bucket.calls} call(s), ${bucket.totalTokens} tokens, ${formatUsd(bucket.costUsd)}`);
    }
    const { maxTokensPerCall, maxTotalTokens, maxCostUsd } = this.limits;
    const limit = (value: number, format: (v: number) => string) => (value > 0 ? format(value) : 'unlimited');
    lines.push(
      `  limits: per call ${limit(maxTokensPerCall, String)}, total ${limit(maxTotalTokens, String)}, cost ${limit(maxCostUsd, formatUsd)}`,
    );
    return lines.join('\n');
  }

  private add(entry: TokenCostEntry): void {
    addTo(this.totals, entry);
    this.recent.push(entry);
    if (this.recent.length > MAX_ENTRIES) this.recent.splice(0, this.recent.length - MAX_ENTRIES);
    if (entry.threadId) this.addScoped(this.byThread, entry.threadId, entry);
    if (entry.workspace) this.addScoped(this.byWorkspace, entry.workspace, entry);
    this.events.tokenUsage({
      provider: entry.provider,
      model: entry.model,
      promptTokens: entry.promptTokens,
      completionTokens: entry.completionTokens,
      cachedTokens: entry.cachedTokens,
      costUsd: entry.costUsd,
      threadId: entry.threadId,
      workspace: entry.workspace,
      kind: entry.kind,
    });
    this.notifyRecord(entry);
    this.notifyLimits(entry);
  }

  private reportUnpriced(meta: Pick<TokenUsageMeta, 'provider' | 'model'>): void {
    const key = `${meta.provider}/${meta.model}`;
    if (this.unpricedReported.has(key)) return;
    this.unpricedReported.add(key);
    logger.warn('token_cost_unknown', {
      provider: meta.provider,
      model: meta.model,
      hint: 'no price for this model: its calls count $0 here; add it to config/model-prices.json or give the provider configuration its pricing',
    });
  }

  private addScoped(map: Map<string, TokenTotals>, key: string, entry: TokenCostEntry): void {
    let totals = map.get(key);
    if (!totals) {
      if (map.size >= MAX_SCOPES) map.delete(map.keys().next().value as string);
      totals = emptyTotals();
      map.set(key, totals);
    }
    addTo(totals, entry);
  }

  private exceededTotals(): TokenLimitExceeded[] {
    const { maxTotalTokens, maxCostUsd } = this.limits;
    const exceeded: TokenLimitExceeded[] = [];
    if (maxTotalTokens > 0 && this.totals.totalTokens >= maxTotalTokens) {
      exceeded.push({ kind: 'total_tokens', limit: maxTotalTokens, actual: this.totals.totalTokens });
    }
    if (maxCostUsd > 0 && this.totals.costUsd >= maxCostUsd) {
      exceeded.push({ kind: 'cost', limit: maxCostUsd, actual: this.totals.costUsd });
    }
    return exceeded;
  }

  private notifyRecord(entry: TokenCostEntry): void {
    try {
      this.recordListener?.(entry);
    } catch {
      // Metrics must never break accounting.
    }
  }

  private notifyLimits(entry: TokenCostEntry): void {
    if (!this.limitListener) return;
    const exceeded = this.exceededTotals().map((item) => ({ ...item, entry }));
    const perCall = this.limits.maxTokensPerCall;
    if (entry.kind === 'chat' && perCall > 0 && entry.totalTokens > perCall) {
      exceeded.unshift({ kind: 'per_call', limit: perCall, actual: entry.totalTokens, entry });
    }
    for (const item of exceeded) {
      try {
        this.limitListener(item);
      } catch {
        // A failing listener must not break accounting.
      }
    }
  }
}

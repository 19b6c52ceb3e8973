import { Counter, Registry } from 'prom-client';

/** One recorded call (TokenTracker's entry): chat completion or embedding. */
export interface TokenUsageObservation {
  provider: string;
  model: string;
  kind: 'chat' | 'embedding';
  /** Includes the cached part. */
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
}

/** Tokens and cost by provider and model, as TokenTracker records them (provider figures, or estimates for aborted calls). */
export class TokenUsageMetrics {
  private readonly tokens: Counter<'provider' | 'model' | 'kind' | 'type'>;
  private readonly cost: Counter<'provider' | 'model' | 'kind'>;

  constructor(registry: Registry) {
    this.tokens = new Counter({
      name: 'graph_ai_llm_tokens_total',
      help: 'Tokens by provider, model, kind (chat, embedding) and type (prompt, completion, cached; cached is part of prompt).',
      labelNames: ['provider', 'model', 'kind', 'type'],
      registers: [registry],
    });
    this.cost = new Counter({
      name: 'graph_ai_llm_cost_usd_total',
      help: 'Cost in US dollars from the registry pricing (config/providers.json), by provider, model and kind.',
      labelNames: ['provider', 'model', 'kind'],
      registers: [registry],
    });
  }

  record(usage: TokenUsageObservation): void {
    const labels = { provider: usage.provider, model: usage.model, kind: usage.kind };
    this.tokens.inc({ ...labels, type: 'prompt' }, nonNegative(usage.promptTokens));
    this.tokens.inc({ ...labels, type: 'completion' }, nonNegative(usage.completionTokens));
    this.tokens.inc({ ...labels, type: 'cached' }, nonNegative(usage.cachedTokens));
    this.cost.inc(labels, nonNegative(usage.costUsd));
  }
}

/** A counter only goes up; a provider's odd figure must not throw inside a request. */
function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

import type { ModelPriceTable } from '../config/model-price-table';
import { OFFLINE_PROVIDER_NAME, ProviderPricing, ProviderRegistry } from '../config/provider-registry';

/** Where a price came from. */
export type PriceSource = 'configuration' | 'model table' | 'registry entry' | 'offline';

export interface ModelPrice {
  pricing: ProviderPricing;
  source: PriceSource;
}

export interface PricedModel {
  /** A registry entry name (or `offline`). */
  provider: string;
  model: string;
  /** The prices a workspace configuration carries, which win over everything else. */
  configured?: ProviderPricing;
  /**
   * False when the calls go to another endpoint than the entry's own (a configuration's `baseUrl`): a
   * free entry's zero price (Ollama on localhost) does not follow it there.
   */
  ownEndpoint?: boolean;
}

const FREE: ProviderPricing = Object.freeze({ inputPerMillion: 0, inputCacheHitPerMillion: 0, outputPerMillion: 0 });

function isFree(pricing: ProviderPricing): boolean {
  return pricing.inputPerMillion === 0 && pricing.inputCacheHitPerMillion === 0 && pricing.outputPerMillion === 0;
}

/**
 * What a model's calls cost: the configuration's own prices, else the
 * model's in config/model-prices.json, else the registry entry's price (its default model's, a
 * fallback). Null when none applies: the generic `openai-compatible` entry has no price, and a free
 * entry pointed at another endpoint is not free. An unpriced model is never silently counted as free
 * where a budget depends on it: the budgets that need a price refuse it.
 */
export class ModelPriceResolver {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly table: ModelPriceTable,
  ) {}

  priceOf(query: PricedModel): ModelPrice | null {
    if (query.configured) return { pricing: query.configured, source: 'configuration' };
    if (query.provider === OFFLINE_PROVIDER_NAME) return { pricing: FREE, source: 'offline' };
    const listed = this.table.priceOf(query.model);
    if (listed) return { pricing: listed, source: 'model table' };
    const entry = this.registry.get(query.provider)?.pricing ?? null;
    if (!entry || (isFree(entry) && query.ownEndpoint === false)) return null;
    return { pricing: entry, source: 'registry entry' };
  }
}

/** Why a cost budget cannot apply to this model: the message of the refusals (400, skipped runs, start-up). */
export function unpricedModelMessage(provider: string, model: string): string {
  return (
    `The model "${model}" of provider "${provider}" has no known price, so a cost budget cannot be enforced on it: ` +
    'give the provider configuration its `pricing`, or add the model to config/model-prices.json'
  );
}

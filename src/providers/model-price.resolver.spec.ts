import { ModelPriceTable } from '../config/model-price-table';
import { ProviderRegistry } from '../config/provider-registry';
import { ModelPriceResolver } from './model-price.resolver';

const prices = new ModelPriceResolver(ProviderRegistry.load(), ModelPriceTable.load());
const GPT_4O = { inputPerMillion: 2.5, inputCacheHitPerMillion: 1.25, outputPerMillion: 10 };
const MINI = { inputPerMillion: 0.15, inputCacheHitPerMillion: 0.075, outputPerMillion: 0.6 };

describe(ModelPriceResolver.name, () => {
  it('prices by model, not by registry entry: gpt-4o costs gpt-4o rates on any entry', () => {
    expect(prices.priceOf({ provider: 'openai-mini', model: 'gpt-4o' })).toEqual({
      pricing: GPT_4O,
      source: 'model table',
    });
    expect(prices.priceOf({ provider: 'openai-compatible', model: 'gpt-4o', ownEndpoint: false })?.pricing).toEqual(
      GPT_4O,
    );
    expect(prices.priceOf({ provider: 'ollama', model: 'gpt-4o-mini' })?.pricing).toEqual(MINI);
  });

  it("falls back to the entry's price for a model the table does not know, on the entry's own endpoint", () => {
    expect(prices.priceOf({ provider: 'deepseek', model: 'deepseek-v9' })).toEqual({
      pricing: { inputPerMillion: 0.28, inputCacheHitPerMillion: 0.028, outputPerMillion: 0.42 },
      source: 'registry entry',
    });
    expect(prices.priceOf({ provider: 'ollama', model: 'llama3.1' })?.pricing.outputPerMillion).toBe(0);
    expect(prices.priceOf({ provider: 'offline', model: 'offline' })?.source).toBe('offline');
  });

  it('has no price for an unknown model on a generic endpoint, or on a free entry moved to another host', () => {
    expect(prices.priceOf({ provider: 'openai-compatible', model: 'my-finetune' })).toBeNull();
    expect(prices.priceOf({ provider: 'ollama', model: 'llama3.1', ownEndpoint: false })).toBeNull();
  });

  it("lets a configuration's own prices win", () => {
    const own = { inputPerMillion: 1, inputCacheHitPerMillion: 0.5, outputPerMillion: 3 };
    expect(prices.priceOf({ provider: 'openai-compatible', model: 'my-finetune', configured: own })).toEqual({
      pricing: own,
      source: 'configuration',
    });
    expect(prices.priceOf({ provider: 'openai', model: 'gpt-4o', configured: own })?.pricing).toEqual(own);
  });
});

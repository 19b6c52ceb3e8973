import { ConfigValidationError } from './config-validation.error';
import { defaultModelPricesPath, ModelPriceTable } from './model-price-table';

const table = ModelPriceTable.load(defaultModelPricesPath());

describe(ModelPriceTable.name, () => {
  it('loads the repository table: every price non-negative, cache hits never dearer than input', () => {
    expect(table.models()).toEqual(
      expect.arrayContaining(['gpt-4o', 'gpt-4o-mini', 'deepseek-chat', 'claude-sonnet-4', 'qwen-plus']),
    );
    for (const model of table.models()) {
      const price = table.priceOf(model)!;
      expect(price.inputCacheHitPerMillion).toBeLessThanOrEqual(price.inputPerMillion);
      expect(price.outputPerMillion).toBeGreaterThan(0);
    }
  });

  it('finds a model by its name, its dated snapshot, or its name behind a vendor prefix; never a mere family', () => {
    expect(table.priceOf('gpt-4o')).toEqual({
      inputPerMillion: 2.5,
      inputCacheHitPerMillion: 1.25,
      outputPerMillion: 10,
    });
    expect(table.priceOf('gpt-4o-2024-08-06')).toEqual(table.priceOf('gpt-4o'));
    expect(table.priceOf('gpt-4o-mini-2024-07-18')).toEqual(table.priceOf('gpt-4o-mini'));
    expect(table.priceOf('claude-sonnet-4-20250514')).toEqual(table.priceOf('claude-sonnet-4'));
    expect(table.priceOf('claude-3-5-sonnet-latest')).toEqual(table.priceOf('claude-3-5-sonnet'));
    expect(table.priceOf('openai/gpt-4o')).toEqual(table.priceOf('gpt-4o'));
    // Variants priced otherwise than their family are not guessed.
    expect(table.priceOf('o3-pro')).toBeUndefined();
    expect(table.priceOf('gpt-4o-audio-preview')).toBeUndefined();
    expect(table.priceOf('llama3.1')).toBeUndefined();
  });

  it('names every problem of a bad table', () => {
    let problems: string[] = [];
    try {
      ModelPriceTable.fromJson(
        {
          models: {
            ok: { inputPerMillion: 1, inputCacheHitPerMillion: 1, outputPerMillion: 1 },
            bad: { inputPerMillion: -1 },
          },
        },
        'prices.json',
      );
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      problems = (error as ConfigValidationError).problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        'prices.json: models.bad.inputPerMillion: must be a number >= 0',
        'prices.json: models.bad.outputPerMillion: must be a number >= 0',
      ]),
    );
    expect(() => ModelPriceTable.fromJson({ prices: {} })).toThrow(/"models" map/);
  });
});

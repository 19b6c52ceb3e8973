import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ConfigValidationError } from './config-validation.error';
import { ProviderPricing, readPricing } from './provider-registry';

/** A dated snapshot of a model: `gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`, or its `-latest` alias. */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * The prices of known models (config/model-prices.json), validated once
 * at start. A model is found by its exact name, then without a dated snapshot suffix, then without a
 * vendor prefix (`openai/gpt-4o` as gateways name them); nothing looser: a variant the table does not
 * name (`o3-pro`, `gpt-4o-audio-preview`) costs what its provider says, not what its family costs.
 */
export class ModelPriceTable {
  private constructor(
    private readonly prices: ReadonlyMap<string, ProviderPricing>,
    readonly source: string,
  ) {}

  static fromJson(document: unknown, source = 'config/model-prices.json'): ModelPriceTable {
    const models = (document as { models?: unknown } | null)?.models;
    if (typeof models !== 'object' || models === null || Array.isArray(models)) {
      throw new ConfigValidationError([`${source}: expected an object with a "models" map`]);
    }
    const problems: string[] = [];
    const prices = new Map<string, ProviderPricing>();
    for (const [model, raw] of Object.entries(models as Record<string, unknown>)) {
      if (model.trim() === '' || model !== model.trim())
        problems.push(`${source}: models."${model}": not a model name`);
      const pricing = readPricing(raw, `models.${model}`, problems);
      if (pricing) prices.set(model, pricing);
    }
    if (problems.length > 0) throw new ConfigValidationError(problems.map((problem) => `${source}: ${problem}`));
    return new ModelPriceTable(prices, source);
  }

  static load(filePath: string = defaultModelPricesPath()): ModelPriceTable {
    let document: unknown;
    try {
      document = JSON.parse(readFileSync(filePath, 'utf8'));
    } catch (error) {
      throw new ConfigValidationError([`${filePath}: cannot read the model prices (${(error as Error).message})`]);
    }
    return ModelPriceTable.fromJson(document, filePath);
  }

  static empty(): ModelPriceTable {
    return new ModelPriceTable(new Map(), 'none');
  }

  priceOf(model: string): ProviderPricing | undefined {
    const unvendored = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
    for (const name of [
      model,
      model.replace(SNAPSHOT_SUFFIX, ''),
      unvendored,
      unvendored.replace(SNAPSHOT_SUFFIX, ''),
    ]) {
      const pricing = this.prices.get(name);
      if (pricing) return pricing;
    }
    return undefined;
  }

  models(): string[] {
    return [...this.prices.keys()];
  }
}

/** config/model-prices.json beside config/providers.json (src/config or dist/src/config, else the working directory). */
export function defaultModelPricesPath(): string {
  const candidates = [
    path.resolve(__dirname, '../../config/model-prices.json'),
    path.resolve(__dirname, '../../../config/model-prices.json'),
    path.resolve(process.cwd(), 'config/model-prices.json'),
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[candidates.length - 1];
}

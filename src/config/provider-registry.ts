import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ConfigValidationError } from './config-validation.error';

export type ProviderType = 'openai-compatible' | 'anthropic';

/** USD per million tokens. Cache hits are the prompt tokens the provider served from its prompt cache. */
export interface ProviderPricing {
  readonly inputPerMillion: number;
  readonly inputCacheHitPerMillion: number;
  readonly outputPerMillion: number;
}

/** One entry of config/providers.json. */
export interface ProviderRegistryEntry {
  readonly name: string;
  readonly type: ProviderType;
  /** Null when the URL must come from the environment (the generic `openai-compatible` entry). */
  readonly baseURL: string | null;
  /** Extra variable read after `<NAME>_BASE_URL` (openai-mini shares OPENAI_BASE_URL). */
  readonly baseUrlEnvVar: string | null;
  /** Null when the model must come from LLM_MODEL. */
  readonly defaultModel: string | null;
  /** Null for keyless endpoints (Ollama). */
  readonly apiKeyEnvVar: string | null;
  /** The key may be absent (local vLLM/LM Studio behind the generic entry). */
  readonly apiKeyOptional: boolean;
  readonly supportsEmbedding: boolean;
  readonly contextWindow: number;
  /**
   * The price of its default model and, for a model config/model-prices.json does not know, the
   * fallback. Null: the entry has no price of its own (the generic
   * `openai-compatible` entry may be any endpoint), so only the table or a configuration prices it.
   */
  readonly pricing: ProviderPricing | null;
  /** Position in auto-detection (lower first); absent = only selectable through LLM_PROVIDER. */
  readonly detectionOrder: number | null;
}

type Env = Readonly<Record<string, string | undefined>>;

const ENTRY_FIELDS = new Set([
  'type',
  'baseURL',
  'baseUrlEnvVar',
  'defaultModel',
  'apiKeyEnvVar',
  'apiKeyOptional',
  'supportsEmbedding',
  'contextWindow',
  'pricing',
  'detectionOrder',
]);
const PRICING_FIELDS = ['inputPerMillion', 'inputCacheHitPerMillion', 'outputPerMillion'] as const;
const NAME_PATTERN = /^[a-z][a-z0-9-]*$/;
const ENV_VAR_PATTERN = /^[A-Z][A-Z0-9_]*$/;
/** Reserved: the offline provider is always available under this name. */
export const OFFLINE_PROVIDER_NAME = 'offline';

/** "openai-mini" → "OPENAI_MINI_BASE_URL". */
export function baseUrlOverrideVariable(providerName: string): string {
  return `${providerName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The provider registry (config/providers.json), validated once at start. Adding an
 * OpenAI-compatible provider is one entry; its key and base-URL override are looked up by name
 * in the raw environment, which is why the registry resolves them and not the typed AppConfig.
 */
export class ProviderRegistry {
  private readonly byName: ReadonlyMap<string, ProviderRegistryEntry>;

  constructor(
    entries: ProviderRegistryEntry[],
    readonly source: string,
  ) {
    this.byName = new Map(entries.map((entry) => [entry.name, entry]));
  }

  /** Validates a parsed registry document; throws ConfigValidationError naming every problem. */
  static fromJson(document: unknown, source = 'config/providers.json'): ProviderRegistry {
    const problems: string[] = [];
    const entries: ProviderRegistryEntry[] = [];
    const providers = (document as { providers?: unknown } | null)?.providers;
    if (
      typeof document !== 'object' ||
      document === null ||
      typeof providers !== 'object' ||
      providers === null ||
      Array.isArray(providers)
    ) {
      throw new ConfigValidationError([`${source}: expected an object with a "providers" map`]);
    }
    for (const [name, raw] of Object.entries(providers as Record<string, unknown>)) {
      const entry = validateEntry(name, raw, problems);
      if (entry) entries.push(entry);
    }
    if (entries.length === 0 && problems.length === 0) problems.push('providers: at least one entry is required');
    const orders = entries.filter((entry) => entry.detectionOrder !== null).map((entry) => entry.detectionOrder);
    if (new Set(orders).size !== orders.length) problems.push('providers: detectionOrder values must be unique');
    if (problems.length > 0) throw new ConfigValidationError(problems.map((problem) => `${source}: ${problem}`));
    return new ProviderRegistry(entries, source);
  }

  /** Reads and validates a registry file (default: the repository's config/providers.json). */
  static load(filePath: string = defaultRegistryPath()): ProviderRegistry {
    let text: string;
    try {
      text = readFileSync(filePath, 'utf8');
    } catch (error) {
      throw new ConfigValidationError([`${filePath}: cannot read the provider registry (${(error as Error).message})`]);
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new ConfigValidationError([`${filePath}: invalid JSON (${(error as Error).message})`]);
    }
    return ProviderRegistry.fromJson(document, filePath);
  }

  get(name: string): ProviderRegistryEntry | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  entries(): ProviderRegistryEntry[] {
    return [...this.byName.values()];
  }

  /** Entries that take part in auto-detection, in priority order. */
  detectable(): ProviderRegistryEntry[] {
    return this.entries()
      .filter((entry) => entry.detectionOrder !== null)
      .sort((a, b) => (a.detectionOrder as number) - (b.detectionOrder as number));
  }

  /** The entry's base URL: `<NAME>_BASE_URL`, then its baseUrlEnvVar, then the file's value. */
  resolveBaseUrl(entry: ProviderRegistryEntry, env: Env): string | null {
    return this.baseUrlFromEnv(entry, env) ?? entry.baseURL;
  }

  /** Only the environment's override, or undefined. */
  baseUrlFromEnv(entry: ProviderRegistryEntry, env: Env): string | undefined {
    const own = nonEmpty(env[baseUrlOverrideVariable(entry.name)]);
    if (own) return own;
    return entry.baseUrlEnvVar ? nonEmpty(env[entry.baseUrlEnvVar]) : undefined;
  }

  resolveApiKey(entry: ProviderRegistryEntry, env: Env): string | undefined {
    return entry.apiKeyEnvVar ? nonEmpty(env[entry.apiKeyEnvVar]) : undefined;
  }
}

function validateEntry(name: string, raw: unknown, problems: string[]): ProviderRegistryEntry | null {
  const where = `providers.${name}`;
  const before = problems.length;
  if (!NAME_PATTERN.test(name)) problems.push(`${where}: name must be lower-case letters, digits and dashes`);
  if (name === OFFLINE_PROVIDER_NAME)
    problems.push(`${where}: "${OFFLINE_PROVIDER_NAME}" is reserved for the built-in offline provider`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${where}: must be an object`);
    return null;
  }
  const entry = raw as Record<string, unknown>;
  for (const key of Object.keys(entry)) {
    if (!ENTRY_FIELDS.has(key)) problems.push(`${where}.${key}: unknown field`);
  }
  if (entry.type !== 'openai-compatible' && entry.type !== 'anthropic') {
    problems.push(`${where}.type: must be "openai-compatible" or "anthropic" (got ${JSON.stringify(entry.type)})`);
  }
  const baseUrlEnvVar = entry.baseUrlEnvVar ?? null;
  if (baseUrlEnvVar !== null && (typeof baseUrlEnvVar !== 'string' || !ENV_VAR_PATTERN.test(baseUrlEnvVar))) {
    problems.push(`${where}.baseUrlEnvVar: must be an environment variable name`);
  }
  if (entry.baseURL === null) {
    if (baseUrlEnvVar === null) problems.push(`${where}.baseURL: null is only allowed with a baseUrlEnvVar`);
  } else if (typeof entry.baseURL !== 'string' || !isHttpUrl(entry.baseURL)) {
    problems.push(`${where}.baseURL: must be an http(s) URL or null (got ${JSON.stringify(entry.baseURL)})`);
  }
  if (entry.defaultModel !== null && (typeof entry.defaultModel !== 'string' || entry.defaultModel.trim() === '')) {
    problems.push(`${where}.defaultModel: must be a non-empty string or null (then LLM_MODEL is required)`);
  }
  if (
    entry.apiKeyEnvVar !== null &&
    (typeof entry.apiKeyEnvVar !== 'string' || !ENV_VAR_PATTERN.test(entry.apiKeyEnvVar))
  ) {
    problems.push(`${where}.apiKeyEnvVar: must be an environment variable name or null`);
  }
  if (entry.apiKeyOptional !== undefined && typeof entry.apiKeyOptional !== 'boolean') {
    problems.push(`${where}.apiKeyOptional: must be a boolean`);
  }
  if (typeof entry.supportsEmbedding !== 'boolean') problems.push(`${where}.supportsEmbedding: must be a boolean`);
  if (typeof entry.contextWindow !== 'number' || !Number.isInteger(entry.contextWindow) || entry.contextWindow < 1) {
    problems.push(`${where}.contextWindow: must be a positive integer`);
  }
  const pricing = entry.pricing === null ? null : readPricing(entry.pricing, `${where}.pricing`, problems, true);
  const detectionOrder = entry.detectionOrder ?? null;
  if (
    detectionOrder !== null &&
    (typeof detectionOrder !== 'number' || !Number.isInteger(detectionOrder) || detectionOrder < 1)
  ) {
    problems.push(`${where}.detectionOrder: must be a positive integer`);
  }
  if (problems.length > before) return null;
  return {
    name,
    type: entry.type as ProviderType,
    baseURL: (entry.baseURL as string | null) ?? null,
    baseUrlEnvVar: baseUrlEnvVar as string | null,
    defaultModel: (entry.defaultModel as string | null) ?? null,
    apiKeyEnvVar: (entry.apiKeyEnvVar as string | null) ?? null,
    apiKeyOptional: (entry.apiKeyOptional as boolean | undefined) ?? false,
    supportsEmbedding: entry.supportsEmbedding as boolean,
    contextWindow: entry.contextWindow as number,
    pricing,
    detectionOrder: detectionOrder as number | null,
  };
}

/**
 * A price object (USD per million tokens, each >= 0, no other field), or null with its problems added.
 * `nullable`: the message says null is allowed too.
 */
export function readPricing(
  value: unknown,
  where: string,
  problems: string[],
  nullable = false,
): ProviderPricing | null {
  const before = problems.length;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${where}: must be an object with ${PRICING_FIELDS.join(', ')}${nullable ? ', or null' : ''}`);
    return null;
  }
  const fields = value as Record<string, unknown>;
  for (const field of PRICING_FIELDS) {
    const price = fields[field];
    if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
      problems.push(`${where}.${field}: must be a number >= 0`);
    }
  }
  for (const key of Object.keys(fields)) {
    if (!(PRICING_FIELDS as readonly string[]).includes(key)) problems.push(`${where}.${key}: unknown field`);
  }
  if (problems.length > before) return null;
  return {
    inputPerMillion: fields.inputPerMillion as number,
    inputCacheHitPerMillion: fields.inputCacheHitPerMillion as number,
    outputPerMillion: fields.outputPerMillion as number,
  };
}

/**
 * config/providers.json at the repository root, found from src/config (ts-node, jest) or
 * dist/src/config (built), falling back to the working directory.
 */
export function defaultRegistryPath(): string {
  const candidates = [
    path.resolve(__dirname, '../../config/providers.json'),
    path.resolve(__dirname, '../../../config/providers.json'),
    path.resolve(process.cwd(), 'config/providers.json'),
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[candidates.length - 1];
}

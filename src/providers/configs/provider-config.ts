import type { ProviderPricing } from '../../config/provider-registry';

/**
 * A workspace's own LLM endpoint: a registry entry of config/providers.json (or `openai-compatible`
 * with a base URL), a model, and its own API key, stored encrypted. The active one decides provider
 * and model of the workspace's new runs.
 */
export interface StoredProviderConfig {
  configId: string;
  workspace: string;
  name: string;
  /** A registry entry name, or `openai-compatible`. */
  provider: string;
  model: string;
  /** Overrides the entry's base URL (required for `openai-compatible`). */
  baseUrl?: string;
  /** The API key sealed by SecretCipher (AES-256-GCM); never the clear text. */
  apiKeySecret?: string;
  /** The key's last four characters, the only part ever shown. */
  apiKeyLast4?: string;
  /** Its model's prices, when the configuration carries them: they win over config/model-prices.json (ModelPriceResolver). */
  pricing?: ProviderPricing;
  active: boolean;
  createdTime: number;
  /** Bumped by every change: a provider built from an older version is rebuilt (WorkspaceLlmProviders). */
  updatedTime: number;
}

/** What the API answers: never the key, only its last four characters. */
export interface ProviderConfigView {
  configId: string;
  name: string;
  provider: string;
  model: string;
  baseUrl?: string;
  apiKeyLast4?: string;
  pricing?: ProviderPricing;
  active: boolean;
  createdTime: number;
  updatedTime: number;
}

/** The fields a PATCH may change; null removes an optional one. */
export interface ProviderConfigChanges {
  name?: string;
  provider?: string;
  model?: string;
  baseUrl?: string | null;
  apiKeySecret?: string | null;
  apiKeyLast4?: string | null;
  pricing?: ProviderPricing | null;
}

export function toProviderConfigView(config: StoredProviderConfig): ProviderConfigView {
  return {
    configId: config.configId,
    name: config.name,
    provider: config.provider,
    model: config.model,
    ...(config.baseUrl !== undefined ? { baseUrl: config.baseUrl } : {}),
    ...(config.apiKeyLast4 !== undefined ? { apiKeyLast4: config.apiKeyLast4 } : {}),
    ...(config.pricing !== undefined ? { pricing: { ...config.pricing } } : {}),
    active: config.active,
    createdTime: config.createdTime,
    updatedTime: config.updatedTime,
  };
}

/** What a configuration's sealed key is bound to (SecretCipher's additional authenticated data): it opens on that record only. */
export function sealContext(workspace: string, configId: string): string {
  return `provider-config:${workspace}:${configId}`;
}

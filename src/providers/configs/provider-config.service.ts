import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { ProviderPricing, ProviderRegistry } from '../../config/provider-registry';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { GENERIC_OPENAI_COMPATIBLE } from '../llm-provider.selector';
import { ModelPriceResolver, unpricedModelMessage } from '../model-price.resolver';
import { PROVIDER_REGISTRY } from '../provider-registry.token';
import { generateProviderConfigId } from './provider-config.id';
import {
  ProviderConfigChanges,
  ProviderConfigView,
  sealContext,
  StoredProviderConfig,
  toProviderConfigView,
} from './provider-config';
import type { ProviderConfigRepository } from './provider-config.repository';
import { PROVIDER_CONFIG_REPOSITORY } from './provider-config-repository.token';
import { SecretCipher } from './secret.cipher';
import { WorkspaceLlmProviders } from './workspace-llm-providers';

/** Most configurations one workspace may hold. */
export const PROVIDER_CONFIGS_PER_WORKSPACE_MAX = 50;

/** POST /api/ai/provider-configs, validated at the edge (CreateProviderConfigDto). */
export interface NewProviderConfig {
  name: string;
  provider: string;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  pricing?: ProviderPricing;
}

/** PATCH: any subset; null removes the base URL or the key. */
export interface ProviderConfigPatch {
  name?: string;
  provider?: string;
  model?: string;
  baseUrl?: string | null;
  apiKey?: string | null;
  pricing?: ProviderPricing | null;
}

const logger = new Logger('provider-configs');

/**
 * The workspace's provider configurations: get, set, list, delete, set_active, get_active. Every
 * answer is a ProviderConfigView: the API key is sealed on write (SecretCipher) and only its last four
 * characters ever leave. A configuration must be usable as stored: a registry entry of
 * config/providers.json or `openai-compatible` with a base URL, and a key when the entry needs one.
 * Without AI_SECRETS_KEY, a configuration with a key is refused. Every change makes the instance's
 * built provider for it stale (WorkspaceLlmProviders.forget); other instances notice the new
 * `updatedTime` on their next run.
 */
@Injectable()
export class ProviderConfigService {
  constructor(
    @Inject(PROVIDER_CONFIG_REPOSITORY) private readonly configs: ProviderConfigRepository,
    @Inject(PROVIDER_REGISTRY) private readonly registry: ProviderRegistry,
    private readonly cipher: SecretCipher,
    private readonly providers: WorkspaceLlmProviders,
    private readonly prices: ModelPriceResolver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(workspace: string): Promise<ProviderConfigView[]> {
    return (await this.configs.list(workspace)).map(toProviderConfigView);
  }

  async get(workspace: string, configId: string): Promise<ProviderConfigView> {
    return toProviderConfigView(await this.stored(workspace, configId));
  }

  /** not_found when the workspace uses the service's own provider. */
  async getActive(workspace: string): Promise<ProviderConfigView> {
    const active = await this.configs.getActive(workspace);
    if (!active)
      throw AppError.notFound("No active provider configuration: the workspace uses the service's own provider");
    return toProviderConfigView(active);
  }

  async create(workspace: string, input: NewProviderConfig): Promise<ProviderConfigView> {
    if ((await this.configs.count(workspace)) >= PROVIDER_CONFIGS_PER_WORKSPACE_MAX) {
      throw AppError.badRequest(
        `A workspace holds at most ${PROVIDER_CONFIGS_PER_WORKSPACE_MAX} provider configurations`,
      );
    }
    this.checkUsable(input.provider, input.baseUrl, input.apiKey !== undefined);
    this.checkPriced(input.provider, input.model, input.baseUrl, input.pricing);
    const now = Date.now();
    const configId = generateProviderConfigId(now);
    const config: StoredProviderConfig = {
      configId,
      workspace,
      name: input.name,
      provider: input.provider,
      model: input.model,
      ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
      ...(input.apiKey !== undefined ? this.sealed(workspace, configId, input.apiKey) : {}),
      ...(input.pricing !== undefined ? { pricing: { ...input.pricing } } : {}),
      active: false,
      createdTime: now,
      updatedTime: now,
    };
    await this.configs.insert(config);
    logger.info('provider_config_created', {
      workspace,
      configId,
      provider: config.provider,
      model: config.model,
      withKey: input.apiKey !== undefined,
    });
    return toProviderConfigView(config);
  }

  async update(workspace: string, configId: string, patch: ProviderConfigPatch): Promise<ProviderConfigView> {
    const current = await this.stored(workspace, configId);
    const provider = patch.provider ?? current.provider;
    const baseUrl = patch.baseUrl === null ? undefined : (patch.baseUrl ?? current.baseUrl);
    // The stored key was given for one endpoint: it never follows the configuration to another host.
    const endpointChanged = provider !== current.provider || baseUrl !== current.baseUrl;
    const keyDropped = patch.apiKey === null || (endpointChanged && patch.apiKey === undefined);
    const withKey = !keyDropped && (patch.apiKey !== undefined || current.apiKeySecret !== undefined);
    if (endpointChanged && patch.apiKey === undefined && current.apiKeySecret !== undefined) {
      this.checkKeyOptional(provider);
    }
    this.checkUsable(provider, baseUrl, withKey);
    const pricing = patch.pricing === null ? undefined : (patch.pricing ?? current.pricing);
    this.checkPriced(provider, patch.model ?? current.model, baseUrl, pricing);
    const changes: ProviderConfigChanges = {
      name: patch.name,
      provider: patch.provider,
      model: patch.model,
      baseUrl: patch.baseUrl,
      pricing: patch.pricing === null ? null : patch.pricing && { ...patch.pricing },
      ...(keyDropped ? { apiKeySecret: null, apiKeyLast4: null } : {}),
      ...(typeof patch.apiKey === 'string' ? this.sealed(workspace, configId, patch.apiKey) : {}),
    };
    const updated = await this.configs.update(workspace, configId, changes, Date.now());
    if (!updated) throw notFound();
    this.providers.forget(configId);
    logger.info('provider_config_updated', { workspace, configId, fields: Object.keys(patch) });
    return toProviderConfigView(updated);
  }

  async delete(workspace: string, configId: string): Promise<void> {
    if (!(await this.configs.delete(workspace, configId))) throw notFound();
    this.providers.forget(configId);
    logger.info('provider_config_deleted', { workspace, configId });
  }

  /** The workspace's new runs use it (runs in progress keep theirs). */
  async activate(workspace: string, configId: string): Promise<ProviderConfigView> {
    const activated = await this.configs.activate(workspace, configId, Date.now());
    if (!activated) throw notFound();
    logger.info('provider_config_activated', { workspace, configId });
    return toProviderConfigView(activated);
  }

  /** The workspace goes back to the service's own provider; not_found when no configuration was active. */
  async deactivate(workspace: string): Promise<void> {
    if (!(await this.configs.deactivate(workspace, Date.now()))) {
      throw AppError.notFound(
        "No active provider configuration: the workspace already uses the service's own provider",
      );
    }
    logger.info('provider_config_deactivated', { workspace });
  }

  private async stored(workspace: string, configId: string): Promise<StoredProviderConfig> {
    const config = await this.configs.get(workspace, configId);
    if (!config) throw notFound();
    return config;
  }

  /** What a run needs of a configuration, checked before it is stored (400 with what is wrong). */
  private checkUsable(provider: string, baseUrl: string | undefined, withKey: boolean): void {
    const entry = this.registry.get(provider);
    if (!entry) {
      throw AppError.badRequest(
        `provider must be one of ${this.registry.names().join(', ')} (config/providers.json); got "${provider}"`,
      );
    }
    if (provider === GENERIC_OPENAI_COMPATIBLE && baseUrl === undefined) {
      throw AppError.badRequest(`baseUrl is required with provider "${GENERIC_OPENAI_COMPATIBLE}"`);
    }
    if (entry.apiKeyEnvVar !== null && !entry.apiKeyOptional && !withKey) {
      throw AppError.badRequest(
        `apiKey is required with provider "${provider}" (a configuration never uses the service's own keys)`,
      );
    }
    if (withKey && !this.cipher.canSeal) {
      throw AppError.badRequest(
        'AI_SECRETS_KEY is not set on this service: a configuration with an API key cannot be stored (docs/provider-configs.md)',
      );
    }
  }

  /**
   * With AI_MAX_COST_USD set, every run must be priced, or the service's cost budget would never count
   * this configuration's calls: one whose model has no price (ModelPriceResolver) must carry its own.
   */
  private checkPriced(
    provider: string,
    model: string,
    baseUrl: string | undefined,
    pricing: ProviderPricing | undefined,
  ): void {
    if (this.config.agent.maxCostUsd <= 0) return;
    if (this.prices.priceOf({ provider, model, configured: pricing, ownEndpoint: baseUrl === undefined })) return;
    throw AppError.badRequest(`AI_MAX_COST_USD is set on this service. ${unpricedModelMessage(provider, model)}`);
  }

  /** A new endpoint for a configuration with a key: the entry must work without one, or the key comes again. */
  private checkKeyOptional(provider: string): void {
    const entry = this.registry.get(provider);
    if (entry && entry.apiKeyEnvVar !== null && !entry.apiKeyOptional) {
      throw AppError.badRequest(
        'apiKey is required when provider or baseUrl changes: the stored key is never sent to another endpoint',
      );
    }
  }

  private sealed(workspace: string, configId: string, apiKey: string): { apiKeySecret: string; apiKeyLast4: string } {
    return { apiKeySecret: this.cipher.seal(apiKey, sealContext(workspace, configId)), apiKeyLast4: apiKey.slice(-4) };
  }
}

function notFound(): AppError {
  return AppError.notFound('Provider configuration not found');
}

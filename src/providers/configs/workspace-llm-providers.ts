import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { ProviderPricing, ProviderRegistry } from '../../config/provider-registry';
import { AppError } from '../../errors/app-error';
import { AiEventLogger } from '../../observability/ai-event.logger';
import { Logger } from '../../observability/logger';
import { LlmMetrics } from '../llm.metrics';
import { LlmProvider } from '../llm-provider';
import { createLlmProvider } from '../llm-provider.factory';
import { GENERIC_OPENAI_COMPATIBLE } from '../llm-provider.selector';
import { LlmProviderResolver } from '../llm-provider.resolver';
import { LLM_PROVIDER } from '../llm-provider.token';
import { ModelPrice, ModelPriceResolver } from '../model-price.resolver';
import { PROVIDER_REGISTRY } from '../provider-registry.token';
import { sealContext, type StoredProviderConfig } from './provider-config';
import type { ProviderConfigRepository } from './provider-config.repository';
import { PROVIDER_CONFIG_REPOSITORY } from './provider-config-repository.token';
import { SecretCipher, SecretUnsealError } from './secret.cipher';

/** A run's provider and model and what its calls cost (null: no price is known). */
export interface RunPrice {
  provider: string;
  model: string;
  pricing: ProviderPricing | null;
}

/** Providers kept built, one per configuration in use. */
const CACHED_PROVIDERS_MAX = 256;

const logger = new Logger('providers');

/**
 * LlmProviderResolver over the stored provider configurations. A
 * configuration becomes an LlmProvider through the same path as the environment's choice: the
 * registry entry's adapter (OpenAI-compatible or Anthropic) built by createLlmProvider, wrapped in the
 * retry policy with the error classification and the LLM metrics, priced by ModelPriceResolver (the
 * configuration's own prices, its model's, the entry's; a free entry on another base URL is not free). Its base URL is its own or the entry's (with the environment's
 * `<ENTRY>_BASE_URL` override); its key is its own only: the environment's keys never go to a
 * workspace's endpoint.
 *
 * Each run reads the configuration from the store (so a change made on another instance is seen at
 * once) and reuses the provider built for that configuration's version; a changed or deleted
 * configuration is rebuilt or dropped (`forget` is called by ProviderConfigService on change).
 */
@Injectable()
export class WorkspaceLlmProviders implements LlmProviderResolver {
  /** Built providers by configuration, least recently used dropped first. */
  private readonly built = new LRUCache<string, { updatedTime: number; provider: LlmProvider }>({
    max: CACHED_PROVIDERS_MAX,
  });
  private readonly events = new AiEventLogger('llm');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PROVIDER_REGISTRY) private readonly registry: ProviderRegistry,
    @Inject(LLM_PROVIDER) private readonly environmentProvider: LlmProvider,
    @Inject(PROVIDER_CONFIG_REPOSITORY) private readonly configs: ProviderConfigRepository,
    private readonly cipher: SecretCipher,
    private readonly metrics: LlmMetrics,
    private readonly prices: ModelPriceResolver,
  ) {}

  async forRun(workspace: string, configId?: string): Promise<LlmProvider> {
    if (configId !== undefined) {
      const named = await this.configs.get(workspace, configId);
      if (!named)
        throw new AppError(
          'provider_not_configured',
          `The provider configuration "${configId}" no longer exists in this workspace`,
        );
      return this.providerOf(named);
    }
    const active = await this.configs.getActive(workspace);
    return active ? this.providerOf(active) : this.environmentProvider;
  }

  /**
   * What a new run's calls would cost, without building its provider: the named configuration, else the
   * active one, else the environment's provider (null price: none is known). Throws as forRun when the
   * named configuration is gone.
   */
  async priceOfRun(workspace: string, configId?: string): Promise<RunPrice> {
    const config =
      configId !== undefined ? await this.configs.get(workspace, configId) : await this.configs.getActive(workspace);
    if (configId !== undefined && !config)
      throw new AppError(
        'provider_not_configured',
        `The provider configuration "${configId}" no longer exists in this workspace`,
      );
    if (!config) {
      const provider = this.environmentProvider;
      return {
        provider: provider.providerName,
        model: provider.model,
        pricing:
          provider.pricing !== undefined
            ? provider.pricing
            : (this.prices.priceOf({ provider: provider.providerName, model: provider.model })?.pricing ?? null),
      };
    }
    return { provider: config.provider, model: config.model, pricing: this.priceOf(config)?.pricing ?? null };
  }

  /** The configuration changed or is gone: its provider is built again on next use. */
  forget(configId: string): void {
    this.built.delete(configId);
  }

  private providerOf(config: StoredProviderConfig): LlmProvider {
    const cached = this.built.get(config.configId);
    if (cached && cached.updatedTime === config.updatedTime) return cached.provider;
    const provider = this.build(config);
    this.built.set(config.configId, { updatedTime: config.updatedTime, provider });
    return provider;
  }

  private build(config: StoredProviderConfig): LlmProvider {
    const entry = this.registry.get(config.provider);
    if (!entry) {
      throw new AppError(
        'provider_not_configured',
        `The provider configuration "${config.name}" names "${config.provider}", which config/providers.json no longer has`,
      );
    }
    const baseURL =
      config.baseUrl ??
      (entry.name === GENERIC_OPENAI_COMPATIBLE ? null : this.registry.resolveBaseUrl(entry, this.config.rawEnv));
    if (!baseURL)
      throw new AppError('provider_not_configured', `The provider configuration "${config.name}" has no base URL`);
    const provider = createLlmProvider(
      {
        kind: 'remote',
        providerName: entry.name,
        entry,
        baseURL: baseURL.replace(/\/+$/, ''),
        apiKey: this.apiKeyOf(config),
        model: config.model,
        source: 'LLM_PROVIDER',
      },
      {
        locale: this.config.locale,
        maxRetries: this.config.agent.maxRetries,
        events: this.events,
        observer: this.metrics,
        pricing: this.priceOf(config)?.pricing ?? null,
      },
    );
    logger.info('workspace_llm_provider_built', {
      workspace: config.workspace,
      configId: config.configId,
      provider: entry.name,
      model: config.model,
    });
    return provider;
  }

  private priceOf(config: StoredProviderConfig): ModelPrice | null {
    return this.prices.priceOf({
      provider: config.provider,
      model: config.model,
      configured: config.pricing,
      ownEndpoint: config.baseUrl === undefined,
    });
  }

  private apiKeyOf(config: StoredProviderConfig): string | undefined {
    if (config.apiKeySecret === undefined) return undefined;
    try {
      return this.cipher.open(config.apiKeySecret, sealContext(config.workspace, config.configId));
    } catch (error) {
      const reason = error instanceof SecretUnsealError ? error.reason : 'corrupt';
      logger.warn('provider_config_key_unusable', { workspace: config.workspace, configId: config.configId, reason });
      throw new AppError(
        'provider_not_configured',
        `The API key of the provider configuration "${config.name}" cannot be decrypted (${error instanceof SecretUnsealError ? error.message : 'damaged'}); an administrator must set it again`,
      );
    }
  }
}

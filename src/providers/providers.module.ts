import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ConfigValidationError } from '../config/config-validation.error';
import { ModelPriceTable } from '../config/model-price-table';
import { ProviderRegistry } from '../config/provider-registry';
import { AiEventLogger } from '../observability/ai-event.logger';
import { Logger } from '../observability/logger';
import { MetricsService } from '../observability/metrics.service';
import { ObservabilityModule } from '../observability/observability.module';
import { LlmErrorClassifier } from './llm-error.classifier';
import { LlmMetrics } from './llm.metrics';
import { LlmProvider } from './llm-provider';
import { ModelPriceResolver, unpricedModelMessage } from './model-price.resolver';
import { createLlmProvider, describeLlmSelection } from './llm-provider.factory';
import { selectLlmProvider } from './llm-provider.selector';
import { LLM_PROVIDER } from './llm-provider.token';
import { PROVIDER_REGISTRY } from './provider-registry.token';
import { TokenTracker } from './token.tracker';
import { TokenUsageMetrics } from './token-usage.metrics';

const logger = new Logger('providers');

/**
 * The LLM side of the service: the registry (config/providers.json) and the model prices
 * (config/model-prices.json), validated at start, the provider chosen once by detection
 * (LLM_PROVIDER; refused when AI_MAX_COST_USD is set and its model has no price), the token/cost tracker and the error
 * classifier, and their metrics (LlmMetrics, TokenUsageMetrics) registered on the application's
 * registry. A bad registry or an unusable LLM_PROVIDER stops the start (ConfigValidationError).
 */
@Module({
  imports: [ObservabilityModule],
  providers: [
    { provide: PROVIDER_REGISTRY, useFactory: (): ProviderRegistry => ProviderRegistry.load() },
    {
      provide: ModelPriceResolver,
      inject: [PROVIDER_REGISTRY],
      useFactory: (registry: ProviderRegistry) => new ModelPriceResolver(registry, ModelPriceTable.load()),
    },
    {
      provide: LlmMetrics,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService) => new LlmMetrics(metrics.registry),
    },
    {
      provide: TokenUsageMetrics,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService) => new TokenUsageMetrics(metrics.registry),
    },
    {
      provide: LLM_PROVIDER,
      inject: [APP_CONFIG, PROVIDER_REGISTRY, LlmMetrics, ModelPriceResolver],
      useFactory: (
        config: AppConfig,
        registry: ProviderRegistry,
        llmMetrics: LlmMetrics,
        prices: ModelPriceResolver,
      ): LlmProvider => {
        const selection = selectLlmProvider(config, registry);
        const price = prices.priceOf({ provider: selection.providerName, model: selection.model });
        if (!price && config.agent.maxCostUsd > 0) {
          // AI_MAX_COST_USD would never fire: every call of this model would count $0.
          throw new ConfigValidationError([
            `AI_MAX_COST_USD: ${unpricedModelMessage(selection.providerName, selection.model)}`,
          ]);
        }
        logger.info('llm_provider_selected', {
          ...describeLlmSelection(selection),
          priceSource: price?.source ?? null,
        });
        return createLlmProvider(selection, {
          pricing: price?.pricing ?? null,
          locale: config.locale,
          maxRetries: config.agent.maxRetries,
          streamIdleTimeoutMs: config.llm.streamIdleTimeoutMs,
          events: new AiEventLogger('llm'),
          observer: llmMetrics,
        });
      },
    },
    {
      provide: TokenTracker,
      inject: [APP_CONFIG, ModelPriceResolver, TokenUsageMetrics],
      useFactory: (config: AppConfig, prices: ModelPriceResolver, usageMetrics: TokenUsageMetrics): TokenTracker => {
        const limitLogger = new Logger('tokens');
        return new TokenTracker({
          pricingFor: (provider, model) => prices.priceOf({ provider, model })?.pricing ?? null,
          limits: {
            maxTokensPerCall: config.agent.maxTokensPerCall,
            maxTotalTokens: config.agent.maxTotalTokens,
            maxCostUsd: config.agent.maxCostUsd,
          },
          locale: config.locale,
          onLimitExceeded: ({ kind, limit, actual }) =>
            limitLogger.warn('token_limit_exceeded', { kind, limit, actual }),
          onRecord: (entry) => usageMetrics.record(entry),
        });
      },
    },
    {
      provide: LlmErrorClassifier,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new LlmErrorClassifier(config.locale),
    },
  ],
  exports: [LLM_PROVIDER, TokenTracker, LlmErrorClassifier, PROVIDER_REGISTRY, LlmMetrics, ModelPriceResolver],
})
export class ProvidersModule {}

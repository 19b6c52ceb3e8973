import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ProviderRegistry } from '../config/provider-registry';
import { AiEventLogger } from '../observability/ai-event.logger';
import { Logger } from '../observability/logger';
import { MetricsService } from '../observability/metrics.service';
import { ObservabilityModule } from '../observability/observability.module';
import { LlmErrorClassifier } from './llm-error.classifier';
import { LlmProvider } from './llm-provider';
import { createLlmProvider, describeLlmSelection } from './llm-provider.factory';
import { selectLlmProvider } from './llm-provider.selector';
import { LLM_PROVIDER } from './llm-provider.token';
import { PROVIDER_REGISTRY } from './provider-registry.token';
import { TokenTracker } from './token.tracker';

const logger = new Logger('providers');

/**
 * The LLM side of the service: the registry (config/providers.json, validated at start), the
 * provider chosen once by detection (LLM_PROVIDER), the token/cost tracker and the error
 * classifier. A bad registry or an unusable LLM_PROVIDER stops the start (ConfigValidationError).
 */
@Module({
  imports: [ObservabilityModule],
  providers: [
    { provide: PROVIDER_REGISTRY, useFactory: (): ProviderRegistry => ProviderRegistry.load() },
    {
      provide: LLM_PROVIDER,
      inject: [APP_CONFIG, PROVIDER_REGISTRY, MetricsService],
      useFactory: (config: AppConfig, registry: ProviderRegistry, metrics: MetricsService): LlmProvider => {
        const selection = selectLlmProvider(config, registry);
        logger.info('llm_provider_selected', describeLlmSelection(selection));
        return createLlmProvider(selection, {
          locale: config.locale,
          maxRetries: config.agent.maxRetries,
          streamIdleTimeoutMs: config.llm.streamIdleTimeoutMs,
          events: new AiEventLogger('llm'),
          observer: metrics.llm,
        });
      },
    },
    {
      provide: TokenTracker,
      inject: [APP_CONFIG, PROVIDER_REGISTRY, MetricsService],
      useFactory: (config: AppConfig, registry: ProviderRegistry, metrics: MetricsService): TokenTracker => {
        const limitLogger = new Logger('tokens');
        return new TokenTracker({
          pricingFor: (provider) => registry.get(provider)?.pricing,
          limits: {
            maxTokensPerCall: config.agent.maxTokensPerCall,
            maxTotalTokens: config.agent.maxTotalTokens,
            maxCostUsd: config.agent.maxCostUsd,
          },
          locale: config.locale,
          onLimitExceeded: ({ kind, limit, actual }) => limitLogger.warn('token_limit_exceeded', { kind, limit, actual }),
          onRecord: (entry) => metrics.tokens.record(entry),
        });
      },
    },
    { provide: LlmErrorClassifier, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new LlmErrorClassifier(config.locale) },
  ],
  exports: [LLM_PROVIDER, TokenTracker, LlmErrorClassifier, PROVIDER_REGISTRY],
})
export class ProvidersModule {}

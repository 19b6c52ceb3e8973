import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { LLM_PROVIDER_RESOLVER } from '../llm-provider.resolver';
import { ProvidersModule } from '../providers.module';
import { ProviderConfigsController } from './http/provider-configs.controller';
import { ProviderConfigSecretsCheck } from './provider-config-secrets.check';
import { ProviderConfigService } from './provider-config.service';
import { SecretCipher } from './secret.cipher';
import { WorkspaceLlmProviders } from './workspace-llm-providers';

/**
 * Provider configurations per workspace: the REST routes, the store behind PROVIDER_CONFIG_REPOSITORY (from
 * PersistenceModule), the cipher of their keys (AI_SECRETS_KEY), the start-up check of those keys, and
 * LLM_PROVIDER_RESOLVER, which the agent asks for each new run's provider.
 */
@Module({
  imports: [ProvidersModule],
  controllers: [ProviderConfigsController],
  providers: [
    {
      provide: SecretCipher,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new SecretCipher(config.secrets.key, config.secrets.previousKey),
    },
    WorkspaceLlmProviders,
    { provide: LLM_PROVIDER_RESOLVER, useExisting: WorkspaceLlmProviders },
    ProviderConfigService,
    ProviderConfigSecretsCheck,
  ],
  exports: [LLM_PROVIDER_RESOLVER, SecretCipher, WorkspaceLlmProviders],
})
export class ProviderConfigsModule {}

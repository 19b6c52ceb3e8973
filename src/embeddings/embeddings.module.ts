import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ProvidersModule } from '../providers/providers.module';
import { TokenTracker } from '../providers/token.tracker';
import { EmbeddingProvider } from './embedding-provider';
import { detectEmbeddingProvider } from './embedding-provider.detector';
import { EMBEDDING_PROVIDER } from './embedding-provider.token';

/**
 * Provides EMBEDDING_PROVIDER: the embedding adapter chosen once at start (see
 * embedding-provider.detector.ts), or null when EMBEDDING_PROVIDER=none. Upstream usage is
 * recorded in the TokenTracker (embedding calls, at the model's price).
 */
@Module({
  imports: [ProvidersModule],
  providers: [
    {
      provide: EMBEDDING_PROVIDER,
      inject: [APP_CONFIG, { token: TokenTracker, optional: true }],
      useFactory: (config: AppConfig, tracker?: TokenTracker): EmbeddingProvider | null =>
        detectEmbeddingProvider(config, {
          onUsage: tracker
            ? (usage) => tracker.recordEmbedding(usage.inputTokens, usage.model, usage.pricePerMillion, { provider: usage.provider })
            : undefined,
        }),
    },
  ],
  exports: [EMBEDDING_PROVIDER],
})
export class EmbeddingsModule {}

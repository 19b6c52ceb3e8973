import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { EMBEDDING_PROVIDER } from '../embeddings/embedding-provider.token';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { GraphModule } from '../graph/graph.module';
import { LlmProvider } from '../providers/llm-provider';
import { LLM_PROVIDER_RESOLVER, LlmProviderResolver } from '../providers/llm-provider.resolver';
import { LLM_PROVIDER } from '../providers/llm-provider.token';
import { ProviderConfigsModule } from '../providers/configs/provider-configs.module';
import { ProvidersModule } from '../providers/providers.module';
import { TokenTracker } from '../providers/token.tracker';
import { approximateTokens } from '../providers/token-estimate';
import { ThreadService } from '../threads/thread.service';
import { ThreadsModule } from '../threads/threads.module';
import { MemoryController } from './http/memory.controller';
import { MemoryContextBuilder } from './memory-context.builder';
import type { MemoryRepository } from './memory.repository';
import { MEMORY_REPOSITORY } from './memory-repository.token';
import { MemoryUpdateQueue } from './memory-update.queue';
import { MemoryService } from './memory.service';
import { MemoryRecaller } from './recall/memory.recaller';
import { MemoryRetentionJob } from './retention/memory-retention.job';
import { memoryRetentionOf, MemoryRetention } from './retention/memory.retention';
import { MemoryStalenessListener } from './staleness/memory-staleness.listener';
import { MemoryStalenessMarker } from './staleness/memory-staleness.marker';
import { GraphChangeWatch } from './staleness/graph-change.watch';
import { WorkspaceConversationSummarizer } from './summaries/workspace-conversation.summarizer';
import { ThreadMemoryWriter } from './thread-memory.writer';

/**
 * Conversation memory: after each run its thread's memory is updated in the background
 * (MemoryUpdateQueue → ThreadMemoryWriter: turn records, summaries through the configured model or
 * extractive without one, embeddings), graph changes mark records stale, MemoryContextBuilder cuts a
 * history that no longer fits and recalls records for a new message (MemoryRecaller), retention trims
 * old summaries daily, and MemoryController serves GET /api/ai/thread/:threadId/memory. Depends on
 * threads, graph, providers and embeddings; none of them depends on it.
 */
@Module({
  imports: [ThreadsModule, GraphModule, EmbeddingsModule, ProvidersModule, ProviderConfigsModule],
  controllers: [MemoryController],
  providers: [
    {
      provide: GraphChangeWatch,
      inject: [APP_CONFIG, GraphChangeNotifier],
      useFactory: (config: AppConfig, notifier: GraphChangeNotifier) =>
        new GraphChangeWatch(notifier, !config.redisUrl),
    },
    {
      provide: ThreadMemoryWriter,
      inject: [
        APP_CONFIG,
        GraphChangeWatch,
        MEMORY_REPOSITORY,
        ThreadService,
        GraphDataSourceFactory,
        EMBEDDING_PROVIDER,
        LLM_PROVIDER,
        TokenTracker,
        { token: LLM_PROVIDER_RESOLVER, optional: true },
      ],
      useFactory: (
        config: AppConfig,
        changes: GraphChangeWatch,
        repository: MemoryRepository,
        threads: ThreadService,
        graphs: GraphDataSourceFactory,
        embeddings: EmbeddingProvider | null,
        provider: LlmProvider,
        tokenTracker: TokenTracker,
        providers: LlmProviderResolver | undefined,
      ) =>
        new ThreadMemoryWriter(
          {
            repository,
            threads,
            graphs,
            embeddings,
            summarizer: new WorkspaceConversationSummarizer(providers ?? null, provider, config.locale),
            tokenTracker,
            changes,
          },
          { level1EveryChars: config.memory.level1EveryChars, level2EveryChars: config.memory.level2EveryChars },
        ),
    },
    {
      provide: MemoryUpdateQueue,
      inject: [APP_CONFIG, ThreadMemoryWriter],
      useFactory: (config: AppConfig, writer: ThreadMemoryWriter): MemoryUpdateQueue | null =>
        config.memory.enabled
          ? new MemoryUpdateQueue(
              (principal, threadId, signal, recorded) => writer.update(principal, threadId, signal, recorded),
              { shutdownTimeoutMs: Math.floor(config.server.shutdownTimeoutMs / 2) },
            )
          : null,
    },
    {
      provide: MemoryStalenessListener,
      inject: [GraphChangeNotifier, MEMORY_REPOSITORY, GraphDataSourceFactory],
      useFactory: (notifier: GraphChangeNotifier, repository: MemoryRepository, graphs: GraphDataSourceFactory) =>
        new MemoryStalenessListener(notifier, new MemoryStalenessMarker(repository, graphs)),
    },
    {
      provide: MemoryRecaller,
      inject: [APP_CONFIG, MEMORY_REPOSITORY, EMBEDDING_PROVIDER],
      useFactory: (config: AppConfig, repository: MemoryRepository, embeddings: EmbeddingProvider | null) =>
        new MemoryRecaller(repository, embeddings, {
          minScore: config.memory.recallMinScore,
          limits: config.memory.recallLimits,
          maxTokens: config.memory.recallMaxTokens,
          countTokens: approximateTokens,
        }),
    },
    {
      provide: MemoryContextBuilder,
      inject: [APP_CONFIG, MEMORY_REPOSITORY, MemoryRecaller],
      useFactory: (config: AppConfig, repository: MemoryRepository, recaller: MemoryRecaller) =>
        new MemoryContextBuilder(repository, recaller, {
          enabled: config.memory.enabled,
          recallMaxTokens: config.memory.recallMaxTokens,
          summaryMaxTokens: config.memory.summaryMaxTokens,
          countTokens: approximateTokens,
          locale: config.locale,
        }),
    },
    {
      provide: MemoryService,
      inject: [ThreadService, MEMORY_REPOSITORY, MemoryUpdateQueue, ThreadMemoryWriter],
      useFactory: (
        threads: ThreadService,
        repository: MemoryRepository,
        queue: MemoryUpdateQueue | null,
        writer: ThreadMemoryWriter,
      ) => new MemoryService(threads, repository, queue, writer),
    },
    {
      provide: MemoryRetention,
      inject: [APP_CONFIG, MEMORY_REPOSITORY],
      useFactory: (config: AppConfig, repository: MemoryRepository) => memoryRetentionOf(config, repository),
    },
    {
      provide: MemoryRetentionJob,
      inject: [APP_CONFIG, MemoryRetention],
      useFactory: (config: AppConfig, retention: MemoryRetention) =>
        new MemoryRetentionJob(retention, config.memory.trimSchedule),
    },
  ],
  exports: [MemoryService, MemoryContextBuilder],
})
export class MemoryModule {}

import { Module } from '@nestjs/common';
import pLimit from 'p-limit';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphStore } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { GraphModule } from '../graph/graph.module';
import { ProvidersModule } from '../providers/providers.module';
import { TokenTracker } from '../providers/token.tracker';
import { EmbeddingProvider } from './embedding-provider';
import { detectEmbeddingProvider } from './embedding-provider.detector';
import { EMBEDDING_PROVIDER } from './embedding-provider.token';
import { EmbeddingWriteListener } from './embedding-write.listener';
import { GraphNodeEmbedder } from './graph-node.embedder';
import { LocalEmbeddingWorker } from './local-embedding.worker';
import { SynchronousEmbeddingProvider } from './synchronous-embedding.provider';
import { NodeEmbeddingQueue } from './node-embedding.queue';

/**
 * Provides EMBEDDING_PROVIDER: the embedding adapter chosen once at start (see
 * embedding-provider.detector.ts), or null when EMBEDDING_PROVIDER=none. Upstream usage is
 * recorded in the TokenTracker (embedding calls, at the model's price).
 *
 * Also runs the embedding write path: EmbeddingWriteListener hears GraphModule's changes (saved
 * feed changes, imports, the demo seed, writes through the data source) and NodeEmbeddingQueue
 * embeds the created or changed nodes in the background, EMBEDDING_CONCURRENCY batches of
 * EMBEDDING_BATCH_SIZE texts at a time (a local model's in a worker thread: LocalEmbeddingWorker).
 * Nothing runs when EMBEDDING_PROVIDER=none.
 */
@Module({
  imports: [ProvidersModule, GraphModule],
  providers: [
    {
      provide: EMBEDDING_PROVIDER,
      inject: [APP_CONFIG, { token: TokenTracker, optional: true }],
      useFactory: (config: AppConfig, tracker?: TokenTracker): EmbeddingProvider | null =>
        detectEmbeddingProvider(config, {
          onUsage: tracker
            ? (usage) =>
                tracker.recordEmbedding(usage.inputTokens, usage.model, usage.pricePerMillion, {
                  provider: usage.provider,
                })
            : undefined,
        }),
    },
    {
      // A local model computes the nodes' vectors in a worker thread, off the event loop (questions stay here).
      provide: LocalEmbeddingWorker,
      inject: [EMBEDDING_PROVIDER],
      useFactory: (provider: EmbeddingProvider | null): LocalEmbeddingWorker | null => {
        if (!(provider instanceof SynchronousEmbeddingProvider) || !LocalEmbeddingWorker.isAvailable()) return null;
        const worker = new LocalEmbeddingWorker(provider.recipe);
        provider.vectorizeBatchesWith(worker);
        // A question's own vector is computed on the event loop: the model is loaded now, before the service listens,
        // rather than in one piece during its first question (a stall of every request then).
        provider.prepare();
        return worker;
      },
    },
    {
      provide: NodeEmbeddingQueue,
      // After LocalEmbeddingWorker: the provider sends its batches there before the first one.
      inject: [APP_CONFIG, GRAPH_STORE, EMBEDDING_PROVIDER, LocalEmbeddingWorker],
      useFactory: (
        config: AppConfig,
        store: GraphStore,
        provider: EmbeddingProvider | null,
      ): NodeEmbeddingQueue | null => {
        if (!provider) return null;
        const { batchSize, concurrency } = config.embeddings;
        const embedder = new GraphNodeEmbedder(store, provider, { batchSize, limiter: pLimit(concurrency) });
        return new NodeEmbeddingQueue(embedder, { maxConcurrentGraphs: concurrency });
      },
    },
    {
      provide: EmbeddingWriteListener,
      inject: [APP_CONFIG, GraphChangeNotifier, NodeEmbeddingQueue],
      // Half the shutdown budget: the rest of the service closes in the other half.
      useFactory: (config: AppConfig, notifier: GraphChangeNotifier, queue: NodeEmbeddingQueue | null) =>
        new EmbeddingWriteListener(notifier, queue, Math.floor(config.server.shutdownTimeoutMs / 2)),
    },
  ],
  exports: [EMBEDDING_PROVIDER, NodeEmbeddingQueue],
})
export class EmbeddingsModule {}

import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { EmbeddingProvider } from '../embeddings/embedding-provider';
import { EMBEDDING_PROVIDER } from '../embeddings/embedding-provider.token';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { NodeEmbeddingQueue } from '../embeddings/node-embedding.queue';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphStore } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { GraphModule } from '../graph/graph.module';
import { MetricsService } from '../observability/metrics.service';
import { ObservabilityModule } from '../observability/observability.module';
import { GraphRagRetriever } from './graph-rag.retriever';
import { GraphSearchPreparer } from './graph-search.preparer';
import { RagController } from './rag.controller';
import { RagContextService } from './rag-context.service';
import { RetrievalCacheInvalidator } from './retrieval-cache.invalidator';
import { RetrievalMetrics } from './retrieval.metrics';
import { TokenCounter } from './token-counter';
import { TokenCountWorker } from './token-count.worker';

/**
 * GraphRAG: one retriever per process (its cache is shared by every workspace, keyed by workspace),
 * hybrid when an embedding provider is configured, BM25 only otherwise; its cache forgets a graph
 * whenever GraphModule reports a change; its latency and cache hits are RetrievalMetrics, on the
 * application's registry; GraphSearchPreparer gets large graphs' search ready before their first
 * question (after an import, and at start). Exports the retriever and the token counter for the agent and the
 * command-line tools (the service never loads the tokenizer in its own thread: POST /api/rag/context
 * counts in TokenCountWorker's thread, and the agent estimates).
 */
@Module({
  imports: [GraphModule, EmbeddingsModule, ObservabilityModule],
  controllers: [RagController],
  providers: [
    {
      provide: RetrievalMetrics,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService) => new RetrievalMetrics(metrics.registry),
    },
    {
      provide: GraphRagRetriever,
      inject: [APP_CONFIG, RetrievalMetrics, { token: EMBEDDING_PROVIDER, optional: true }],
      useFactory: (config: AppConfig, metrics: RetrievalMetrics, embeddingProvider?: EmbeddingProvider | null) =>
        new GraphRagRetriever({
          maxNodes: config.rag.maxNodes,
          maxDepth: config.rag.maxDepth,
          cacheTTLMs: config.rag.cacheTtlMs,
          embeddingProvider: embeddingProvider ?? null,
          observer: metrics,
        }),
    },
    { provide: TokenCounter, useFactory: () => new TokenCounter() },
    { provide: TokenCountWorker, useFactory: () => new TokenCountWorker() },
    RagContextService,
    {
      provide: GraphSearchPreparer,
      inject: [
        GRAPH_STORE,
        GraphChangeNotifier,
        { token: EMBEDDING_PROVIDER, optional: true },
        { token: NodeEmbeddingQueue, optional: true },
      ],
      useFactory: (
        store: GraphStore,
        notifier: GraphChangeNotifier,
        embeddingProvider?: EmbeddingProvider | null,
        embeddingQueue?: NodeEmbeddingQueue | null,
      ) => new GraphSearchPreparer(store, notifier, embeddingProvider?.modelName ?? null, embeddingQueue ?? null),
    },
    {
      provide: RetrievalCacheInvalidator,
      inject: [GraphRagRetriever, GraphChangeNotifier],
      useFactory: (retriever: GraphRagRetriever, notifier: GraphChangeNotifier) =>
        new RetrievalCacheInvalidator(retriever, notifier),
    },
  ],
  exports: [GraphRagRetriever, TokenCounter, RagContextService],
})
export class RagModule {}

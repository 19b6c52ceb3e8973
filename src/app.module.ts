import { DynamicModule, Module } from '@nestjs/common';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { AiModule } from './ai/ai.module';
import { AuthModule } from './auth/auth.module';
import { AutomationClock } from './automations/automation-clock';
import { AutomationsModule } from './automations/automations.module';
import { AppConfig } from './config/app-config';
import { AppConfigModule } from './config/app-config.module';
import { EmbeddingsModule } from './embeddings/embeddings.module';
import { GraphFeedModule } from './graph/feed/graph-feed.module';
import { GraphModule } from './graph/graph.module';
import { HealthModule } from './health/health.module';
import { MemoryModule } from './memory/memory.module';
import { ObservabilityModule } from './observability/observability.module';
import { TracingModule } from './observability/tracing/tracing.module';
import { PersistenceModule } from './persistence/persistence.module';
import { PlaygroundModule } from './playground/playground.module';
import { ProvidersModule } from './providers/providers.module';
import { RagModule } from './rag/rag.module';
import { RedisModule } from './redis/redis.module';
import { ThreadsModule } from './threads/threads.module';

/** What tests may replace in the application (the service uses the defaults). */
export interface AppModuleOptions {
  /** The automations' clock; the system clock by default. */
  clock?: AutomationClock;
  /** Where spans go instead of OTLP (tests: an in-memory exporter), tracing on even without an endpoint. */
  spanExporter?: SpanExporter;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        ObservabilityModule,
        TracingModule.forRoot({ ...config.tracing, exporter: options.spanExporter }),
        PersistenceModule.forRoot(config),
        RedisModule.forRoot(config.redisUrl),
        GraphModule,
        GraphFeedModule,
        EmbeddingsModule,
        RagModule,
        ProvidersModule,
        AuthModule,
        ThreadsModule,
        AiModule,
        MemoryModule,
        AutomationsModule.forRoot({ clock: options.clock }),
        HealthModule,
        // The playground page is served only when enabled (off in production by default).
        ...(config.playground.enabled ? [PlaygroundModule] : []),
      ],
    };
  }
}

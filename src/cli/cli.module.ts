import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { AppConfigModule } from '../config/app-config.module';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { GraphModule } from '../graph/graph.module';
import { PersistenceModule } from '../persistence/persistence.module';
import { ProvidersModule } from '../providers/providers.module';
import { RagModule } from '../rag/rag.module';

/**
 * What the command-line tools need, wired exactly as the service wires it (same modules, same
 * store and provider selection), without HTTP, Socket.IO, threads or the agent.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        AppConfigModule.forRoot(config),
        PersistenceModule.forRoot(config),
        GraphModule,
        EmbeddingsModule,
        ProvidersModule,
        RagModule,
      ],
    };
  }
}

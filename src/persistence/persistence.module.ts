import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ArangoPersistenceModule } from './arango-persistence.module';
import { SqlitePersistenceModule } from './sqlite-persistence.module';

/**
 * THE one place the store is chosen: STORE=sqlite imports SqlitePersistenceModule, STORE=arango
 * ArangoPersistenceModule. Each provides its connection and, on it, every store adapter under the
 * tokens of PERSISTED_STORES (GRAPH_STORE, THREAD_REPOSITORY, …); nothing else in the service knows
 * which store runs. Global, so GraphModule, ThreadsModule and the rest inject the tokens without
 * importing it (and never import their provider's module). The service (AppModule) and the
 * command-line tools (CliModule, `npm run seed`) both go through here.
 */
@Module({})
export class PersistenceModule {
  static forRoot(config: AppConfig): DynamicModule {
    const { store } = config;
    const backend =
      store.kind === 'arango'
        ? ArangoPersistenceModule.forRoot({
            url: store.url,
            database: store.database,
            user: store.user,
            password: store.password,
          })
        : SqlitePersistenceModule.forRoot({ dataDir: store.dataDir, indexWaitMs: config.rag.indexWaitMs });
    return { module: PersistenceModule, global: true, imports: [backend], exports: [backend] };
  }
}

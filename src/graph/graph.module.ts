import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { DemoGraphSeeder } from './demo-graph.seeder';
import { GraphController } from './graph.controller';
import { GraphDataSourceFactory } from './graph-data-source.factory';
import { GraphStore } from './graph-store';
import { graphStoreProvider } from './graph-store.provider';
import { GRAPH_STORE } from './graph-store.token';

/**
 * Graph data: the GraphStore adapter STORE selects (GRAPH_STORE, for admin paths such as import,
 * export, embeddings), GraphDataSourceFactory (workspace-scoped reads and writes for every other
 * consumer), the import/export routes, and the demo graph on first start. The store is closed
 * before DatabaseModule closes the connection.
 */
@Module({
  imports: [DatabaseModule],
  controllers: [GraphController],
  providers: [graphStoreProvider, GraphDataSourceFactory, DemoGraphSeeder],
  exports: [GRAPH_STORE, GraphDataSourceFactory],
})
export class GraphModule implements OnModuleDestroy {
  constructor(@Inject(GRAPH_STORE) private readonly store: GraphStore) {}

  async onModuleDestroy(): Promise<void> {
    await this.store.close();
  }
}

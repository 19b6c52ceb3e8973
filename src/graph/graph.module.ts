import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { DemoGraphSeeder } from './demo-graph.seeder';
import { GraphController } from './graph.controller';
import { GraphChangeNotifier } from './graph-change.notifier';
import { GraphDataSourceFactory } from './graph-data-source.factory';
import { GraphStore } from './graph-store';
import { graphStoreProvider } from './graph-store.provider';
import { GRAPH_STORE } from './graph-store.token';
import { LiveOverlayRegistry } from './overlay/live-overlay.registry';

/**
 * Graph data: the GraphStore adapter STORE selects (GRAPH_STORE, for admin paths such as import,
 * export, embeddings), GraphDataSourceFactory (workspace-scoped reads and writes through the live
 * overlay, for every other consumer), the live overlay itself (fed by GraphFeedModule), the
 * import/export routes, and the demo graph on first start. GraphChangeNotifier tells dependent
 * modules (retrieval cache, embedding write path) what changed. The store is closed before
 * DatabaseModule closes the connection.
 */
@Module({
  imports: [DatabaseModule],
  controllers: [GraphController],
  providers: [
    graphStoreProvider,
    GraphDataSourceFactory,
    DemoGraphSeeder,
    { provide: LiveOverlayRegistry, useFactory: () => new LiveOverlayRegistry() },
    { provide: GraphChangeNotifier, useFactory: () => new GraphChangeNotifier() },
  ],
  exports: [GRAPH_STORE, GraphDataSourceFactory, GraphChangeNotifier, LiveOverlayRegistry],
})
export class GraphModule implements OnModuleDestroy {
  constructor(
    @Inject(GRAPH_STORE) private readonly store: GraphStore,
    overlays: LiveOverlayRegistry,
    notifier: GraphChangeNotifier,
  ) {
    // An imported graph replaces the one the live overlay was relative to.
    notifier.subscribe((event) => {
      if (event.kind === 'imported') overlays.clear(event.workspace, event.graphKey);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.store.close();
  }
}

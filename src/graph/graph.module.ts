import { Module } from '@nestjs/common';
import { DemoGraphSeeder } from './demo-graph.seeder';
import { GraphController } from './graph.controller';
import { GraphChangeNotifier } from './graph-change.notifier';
import { GraphDataSourceFactory } from './graph-data-source.factory';
import { LiveOverlayRegistry } from './overlay/live-overlay.registry';

/**
 * Graph data: GraphDataSourceFactory (workspace-scoped reads and writes through the live overlay,
 * for every consumer), the live overlay itself (fed by GraphFeedModule), the import/export routes,
 * and the demo graph on first start. GraphChangeNotifier tells dependent modules (retrieval cache,
 * embedding write path) what changed. The GraphStore adapter (GRAPH_STORE) comes from the global
 * PersistenceModule, which chose it from STORE and closes it at shutdown; admin paths (import,
 * export, embeddings) inject it from there.
 */
@Module({
  controllers: [GraphController],
  providers: [
    GraphDataSourceFactory,
    DemoGraphSeeder,
    { provide: LiveOverlayRegistry, useFactory: () => new LiveOverlayRegistry() },
    { provide: GraphChangeNotifier, useFactory: () => new GraphChangeNotifier() },
  ],
  exports: [GraphDataSourceFactory, GraphChangeNotifier, LiveOverlayRegistry],
})
export class GraphModule {
  constructor(overlays: LiveOverlayRegistry, notifier: GraphChangeNotifier) {
    // An imported graph replaces the one the live overlay was relative to.
    notifier.subscribe((event) => {
      if (event.kind === 'imported') overlays.clear(event.workspace, event.graphKey);
    });
  }
}

import { Inject, Module } from '@nestjs/common';
import { Logger } from '../observability/logger';
import { RedisConnection } from '../redis/redis-connection';
import { REDIS_CONNECTION } from '../redis/redis-connection.token';
import { DemoGraphSeeder } from './demo-graph.seeder';
import { GraphController } from './graph.controller';
import { GraphChangeNotifier } from './graph-change.notifier';
import { GraphDataSourceFactory } from './graph-data-source.factory';
import { LiveOverlayRegistry } from './overlay/live-overlay.registry';
import { LiveOverlayWriter } from './overlay/live-overlay.writer';
import { LIVE_OVERLAY_WRITER } from './overlay/live-overlay-writer.token';
import { LocalLiveOverlayWriter } from './overlay/local-live-overlay.writer';
import { RedisLiveOverlayWriter } from './overlay/redis-live-overlay.writer';
import { RedisGraphChangeRelay } from './redis-graph-change.relay';

const logger = new Logger('graph');

/**
 * Graph data: GraphDataSourceFactory (workspace-scoped reads and writes through the live overlay,
 * for every consumer), the live overlay itself (fed by GraphFeedModule), the import/export routes,
 * and the demo graph on first start. GraphChangeNotifier tells dependent modules (retrieval cache,
 * embedding write path) what changed. With REDIS_URL (RedisModule) the live overlay is shared by every
 * instance (RedisLiveOverlayWriter) and saved changes and imports are relayed to them (RedisGraphChangeRelay). The GraphStore adapter (GRAPH_STORE) comes from the global
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
    {
      provide: LIVE_OVERLAY_WRITER,
      inject: [LiveOverlayRegistry, GraphChangeNotifier, { token: REDIS_CONNECTION, optional: true }],
      useFactory: (
        overlays: LiveOverlayRegistry,
        notifier: GraphChangeNotifier,
        redis: RedisConnection | null,
      ): LiveOverlayWriter =>
        redis ? new RedisLiveOverlayWriter(redis, overlays, notifier) : new LocalLiveOverlayWriter(overlays),
    },
    {
      provide: RedisGraphChangeRelay,
      inject: [GraphChangeNotifier, { token: REDIS_CONNECTION, optional: true }],
      useFactory: (notifier: GraphChangeNotifier, redis: RedisConnection | null) =>
        redis ? new RedisGraphChangeRelay(redis, notifier) : null,
    },
  ],
  exports: [GraphDataSourceFactory, GraphChangeNotifier, LiveOverlayRegistry, LIVE_OVERLAY_WRITER],
})
export class GraphModule {
  constructor(notifier: GraphChangeNotifier, @Inject(LIVE_OVERLAY_WRITER) overlays: LiveOverlayWriter) {
    // An imported graph replaces the one the live overlay was relative to (the importing instance clears it for all).
    notifier.subscribe((event) => {
      if (event.kind !== 'imported' || event.remote) return;
      overlays.clear(event.workspace, event.graphKey).catch((error: Error) => {
        logger.warn('live_overlay_clear_failed', { graphKey: event.graphKey, error: error.message });
      });
    });
  }
}

import { randomUUID } from 'node:crypto';
import { Logger } from '../observability/logger';
import type { QuietRedis } from '../redis/redis-client';
import type { RedisConnection } from '../redis/redis-connection';
import { GraphChangeEvent } from './graph-change.event';
import { GraphChangeNotifier } from './graph-change.notifier';

/** The channel of saved changes and imports, between instances. */
export const GRAPH_CHANGES_CHANNEL = 'graph-ai:graph-changes';

const logger = new Logger('graph');

/**
 * With REDIS_URL: the saved changes and imports made on one instance (`stored`, `imported` events) are
 * published, and every other instance notifies them again as `remote` events, so its retrieval cache
 * forgets that graph as the instance that made the change did. Live changes travel
 * with the shared overlay (RedisLiveOverlayWriter), not here. While Redis is down nothing is relayed:
 * the other instances' caches keep a changed graph's contexts until RAG_CACHE_TTL_MS.
 */
export class RedisGraphChangeRelay {
  private readonly instance = randomUUID();
  private readonly unsubscribe: () => void;

  constructor(connection: RedisConnection, notifier: GraphChangeNotifier) {
    const publisher: QuietRedis = connection.commands;
    this.unsubscribe = notifier.subscribe((event) => {
      if (event.remote || event.kind === 'live') return;
      publisher.publish(GRAPH_CHANGES_CHANNEL, JSON.stringify({ from: this.instance, event })).catch((error: Error) => {
        logger.warn('graph_change_not_relayed', { kind: event.kind, graphKey: event.graphKey, error: error.message });
      });
    });
    const subscriber = connection.client({ role: 'graph-changes-sub', offlineQueue: true });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== GRAPH_CHANGES_CHANNEL) return;
      const { from, event } = JSON.parse(message) as { from: string; event: GraphChangeEvent };
      if (from !== this.instance) notifier.notify({ ...event, remote: true });
    });
    subscriber.subscribe(GRAPH_CHANGES_CHANNEL).catch(() => undefined);
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}

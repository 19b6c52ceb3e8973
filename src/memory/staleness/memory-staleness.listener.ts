import type { GraphChangeEvent } from '../../graph/graph-change.event';
import type { GraphChangeNotifier } from '../../graph/graph-change.notifier';
import { Logger } from '../../observability/logger';
import type { MemoryStalenessMarker } from './memory-staleness.marker';

const logger = new Logger('memory');

/**
 * Hears GraphModule's changes and has MemoryStalenessMarker check them in the background (the
 * notifier's listeners must return at once). Changes of one graph are checked one after the other, in
 * the order they happened; a failed check is logged with the graph it concerned.
 */
export class MemoryStalenessListener {
  private readonly unsubscribe: () => void;
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    notifier: GraphChangeNotifier,
    private readonly marker: MemoryStalenessMarker,
  ) {
    this.unsubscribe = notifier.subscribe((event) => this.onChange(event));
  }

  /** Resolves once every change heard so far was checked (tests, shutdown). */
  async whenIdle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all(this.chains.values());
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe();
    await this.whenIdle();
  }

  private onChange(event: GraphChangeEvent): void {
    // The instance that made a change marks the shared store; a relayed copy (remote) would do it twice.
    if (event.kind === 'live' || event.remote) return;
    const id = `${event.workspace}\u0000${event.graphKey}`;
    const previous = this.chains.get(id) ?? Promise.resolve();
    const current = previous.then(() => this.check(event));
    this.chains.set(id, current);
    void current.finally(() => {
      if (this.chains.get(id) === current) this.chains.delete(id);
    });
  }

  private async check(event: Exclude<GraphChangeEvent, { kind: 'live' }>): Promise<void> {
    try {
      const marked = await this.marker.apply(event);
      if (marked > 0)
        logger.info('memory_marked_stale', {
          workspace: event.workspace,
          graphKey: event.graphKey,
          change: event.kind,
          records: marked,
        });
    } catch (error) {
      logger.error('memory_staleness_check_failed', {
        workspace: event.workspace,
        graphKey: event.graphKey,
        change: event.kind,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  }
}

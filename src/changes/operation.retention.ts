import { Logger } from '../observability/logger';
import type { OperationRepository } from './operation.repository';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often the change log is pruned. */
export const OPERATION_PRUNE_INTERVAL_MS = 60 * 60 * 1000;

const logger = new Logger('changes');

/**
 * Keeps the change log within AI_CHANGE_LOG_RETENTION_DAYS: operations decided
 * earlier are deleted, once at start and then hourly, by every instance (the delete is idempotent). An operation
 * pruned cannot be undone any more; its changes stay in the graph. 0 days: nothing is pruned.
 */
export class OperationRetention {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: OperationRepository,
    private readonly retentionDays: number,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.retentionDays <= 0 || this.timer) return;
    void this.prune();
    this.timer = setInterval(() => void this.prune(), OPERATION_PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Deletes what is past retention; a failure is logged and tried again at the next interval. */
  async prune(): Promise<number> {
    try {
      const removed = await this.repository.prune(this.now() - this.retentionDays * DAY_MS);
      if (removed > 0) logger.info('change_log_pruned', { removed, retentionDays: this.retentionDays });
      return removed;
    } catch (error) {
      logger.warn('change_log_prune_failed', { error: error instanceof Error ? error.message : String(error) });
      return 0;
    }
  }
}

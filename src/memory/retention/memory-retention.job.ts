import { Cron } from 'croner';
import { Logger } from '../../observability/logger';
import type { MemoryRetention } from './memory.retention';

const logger = new Logger('memory');

/**
 * Runs MemoryRetention on MEMORY_TRIM_SCHEDULE (default every day at 03:00, the process's time zone)
 * with croner. A run never overlaps the previous one; a failed run is logged and the next one tries
 * again. Every instance runs it: trimming is idempotent. The timer does not keep the process alive.
 */
export class MemoryRetentionJob {
  private readonly job: Cron;

  constructor(retention: MemoryRetention, schedule: string) {
    this.job = new Cron(schedule, { protect: true, unref: true }, async () => {
      try {
        const trimmed = await retention.trim();
        logger.info('memory_trimmed', { ...trimmed, trigger: 'schedule' });
      } catch (error) {
        logger.error('memory_trim_failed', {
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
      }
    });
  }

  /** When the next run is due (null once stopped). */
  nextRun(): Date | null {
    return this.job.nextRun();
  }

  onModuleDestroy(): void {
    this.job.stop();
  }
}

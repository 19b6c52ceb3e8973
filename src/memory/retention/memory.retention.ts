import type { AppConfig } from '../../config/app-config';
import type { MemoryRepository } from '../memory.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface MemoryRetentionPolicy {
  /** Level-1 records older than this many days are removed; 0 keeps them. */
  level1Days: number;
  level2Days: number;
}

export interface MemoryTrimReport {
  level1: number;
  level2: number;
}

/**
 * Retention of conversation memory (docs/memory.md, "Retention"): short-term summaries older than
 * MEMORY_L1_RETENTION_DAYS (30) and long-term ones older than MEMORY_L2_RETENTION_DAYS (90) are
 * removed, in every workspace. Turn records stay as long as their thread. Summarization never redoes
 * what was trimmed (the threads' cursors stay).
 */
export class MemoryRetention {
  constructor(
    private readonly repository: MemoryRepository,
    private readonly policy: MemoryRetentionPolicy,
  ) {}

  async trim(now: number = Date.now()): Promise<MemoryTrimReport> {
    const { level1Days, level2Days } = this.policy;
    return {
      level1: level1Days > 0 ? await this.repository.trim(1, now - level1Days * DAY_MS) : 0,
      level2: level2Days > 0 ? await this.repository.trim(2, now - level2Days * DAY_MS) : 0,
    };
  }
}

/** The retention the configuration asks for (MEMORY_L1_RETENTION_DAYS, MEMORY_L2_RETENTION_DAYS). */
export function memoryRetentionOf(config: AppConfig, repository: MemoryRepository): MemoryRetention {
  return new MemoryRetention(repository, {
    level1Days: config.memory.level1RetentionDays,
    level2Days: config.memory.level2RetentionDays,
  });
}

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
  /** Marks of deleted threads' memory forgotten (ArangoDB; a day after the delete no update of them is still in flight). */
  deletedThreadMarks: number;
}

/** How long the mark a thread's deleted memory leaves (refusing late inserts) is kept. */
export const DELETED_THREAD_MARK_DAYS = 1;

/**
 * Retention of conversation memory: short-term summaries older than
 * MEMORY_L1_RETENTION_DAYS (30) that a long-term summary already covers, and long-term ones older than
 * MEMORY_L2_RETENTION_DAYS (90), are removed, in every workspace. A short-term summary no long-term one
 * covers yet stays whatever its age: it is what the next long-term summary is made of. Turn records stay
 * as long as their thread. Summarization never redoes what was trimmed (the threads' cursors stay).
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
      deletedThreadMarks: await this.repository.forgetDeletedThreads(now - DELETED_THREAD_MARK_DAYS * DAY_MS),
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

import type { Principal } from '../auth/principal';
import { AppError } from '../errors/app-error';
import { Logger } from '../observability/logger';
import type { ThreadService } from '../threads/thread.service';
import { MemoryEntryView, toMemoryEntryView } from './http/memory-entry.view';
import type { MemoryFilter } from './memory-record';
import type { MemoryRepository } from './memory.repository';
import type { MemoryUpdateQueue } from './memory-update.queue';

const logger = new Logger('memory');

/**
 * What the rest of the service asks of conversation memory: note that runs start and end on threads
 * (their memory is then updated in the background, when no run is in progress), list a thread's memory for its owner, forget a deleted
 * thread's memory. With MEMORY_ENABLED=false nothing is written (the queue is absent).
 */
export class MemoryService {
  constructor(
    private readonly threads: ThreadService,
    private readonly repository: MemoryRepository,
    private readonly queue: MemoryUpdateQueue | null,
  ) {}

  /** A run began: memory updates wait until no run is in progress (docs/memory.md). */
  runStarted(): void {
    this.queue?.runStarted();
  }

  /** A run holds the thread's lease: its memory update, if one is still waiting, is done now. */
  threadResumed(principal: Principal, threadId: string): void {
    this.queue?.threadResumed(principal, threadId);
  }

  /**
   * A run is over (once per runStarted). When it held a thread (`threadId`), its rounds are committed:
   * update its memory, later, without waiting.
   */
  runSettled(principal: Principal, threadId: string | null): void {
    if (threadId !== null) this.queue?.enqueue(principal, threadId);
    this.queue?.runSettled();
  }

  /**
   * GET /api/ai/thread/:threadId/memory: the thread's records, oldest first, filtered by level and by
   * creation time (inclusive). not_found when the thread is not the principal's.
   */
  async list(principal: Principal, threadId: string, filter: MemoryFilter): Promise<MemoryEntryView[]> {
    if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
      throw AppError.badRequest('since must not be after until', { since: filter.since, until: filter.until });
    }
    const thread = await this.threads.load(principal, threadId);
    return (await this.repository.list(thread.workspace, thread.threadId, { ...filter, vectors: false })).map(
      toMemoryEntryView,
    );
  }

  /** The thread was deleted: its memory goes too (the embedded store also cascades on its own). */
  async forget(workspace: string, threadId: string): Promise<void> {
    const removed = await this.repository.deleteThread(workspace, threadId);
    if (removed > 0) logger.info('memory_forgotten', { workspace, threadId, records: removed });
  }
}

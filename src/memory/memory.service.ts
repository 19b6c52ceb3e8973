import type { Principal } from '../auth/principal';
import { AppError } from '../errors/app-error';
import { Logger } from '../observability/logger';
import type { ThreadService } from '../threads/thread.service';
import { MemoryEntryView, toMemoryEntryView } from './http/memory-entry.view';
import type { MemoryFilter } from './memory-record';
import type { MemoryRepository } from './memory.repository';
import type { MemoryUpdateQueue } from './memory-update.queue';
import type { ThreadMemoryWriter } from './thread-memory.writer';

const logger = new Logger('memory');

/**
 * What the rest of the service asks of conversation memory: note that runs start and end on threads
 * (a run's turns are recorded as it ends, so their node fingerprints are the turn's; the rest of its
 * memory is updated in the background, when no run is in progress), list a thread's memory for its
 * owner, delete a thread with its memory. With MEMORY_ENABLED=false nothing is written (the queue is absent).
 */
export class MemoryService {
  private readonly recording = new Set<Promise<void>>();

  constructor(
    private readonly threads: ThreadService,
    private readonly repository: MemoryRepository,
    private readonly queue: MemoryUpdateQueue | null,
    private readonly turns: Pick<ThreadMemoryWriter, 'recordTurnsFor'> | null = null,
  ) {}

  /** A run began: memory updates wait until no run is in progress. */
  runStarted(): void {
    this.queue?.runStarted();
  }

  /** A run holds the thread's lease: its memory update, if one is still waiting, is done now. */
  threadResumed(principal: Principal, threadId: string): void {
    this.queue?.threadResumed(principal, threadId);
  }

  /**
   * A run is over (once per runStarted). When it held a thread (`threadId`), its rounds are committed:
   * its closed turns are recorded now, in the background (a failure leaves them to the update), and the
   * rest of its memory is updated later, from what the recording read and wrote.
   */
  runSettled(principal: Principal, threadId: string | null): void {
    if (threadId !== null && this.queue) {
      const recorded = this.turns?.recordTurnsFor(principal, threadId);
      if (recorded) this.track(recorded, principal, threadId);
      this.queue.enqueue(principal, threadId, recorded);
    }
    this.queue?.runSettled();
  }

  /** Resolves once every turn recording started so far is over (tests; shutdown, before the stores close). */
  async whenTurnsRecorded(): Promise<void> {
    while (this.recording.size > 0) await Promise.all(this.recording);
  }

  onModuleDestroy(): Promise<void> {
    return this.whenTurnsRecorded();
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

  /**
   * DELETE /api/ai/thread/:threadId: its memory first, then the thread (not_found when it is not the
   * principal's). In that order a failure in between leaves the thread, so a retry deletes both; the
   * repository refuses the thread's records from then on, so an update in flight brings none back.
   */
  async deleteThread(principal: Principal, threadId: string): Promise<void> {
    const thread = await this.threads.load(principal, threadId);
    const removed = await this.repository.deleteThread(thread.workspace, threadId);
    if (removed > 0) logger.info('memory_forgotten', { workspace: thread.workspace, threadId, records: removed });
    await this.threads.delete(principal, threadId);
  }

  private track(recording: Promise<unknown>, principal: Principal, threadId: string): void {
    const tracked = recording.then(
      () => undefined,
      (error: unknown) =>
        logger.warn('memory_turns_deferred', {
          threadId,
          workspace: principal.workspace,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        }),
    );
    this.recording.add(tracked);
    void tracked.finally(() => this.recording.delete(tracked));
  }
}

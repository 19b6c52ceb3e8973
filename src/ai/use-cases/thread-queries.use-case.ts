import type { Principal } from '../../auth/principal';
import type { OperationService } from '../../changes/operation.service';
import type { MemoryService } from '../../memory/memory.service';
import type { ThreadService } from '../../threads/thread.service';
import type { ThreadSummary } from '../../threads/thread.types';
import { ThreadChangeView, toThreadChangesView } from '../thread-changes.view';
import { ThreadView, toThreadView } from '../thread.view';

/**
 * Thread queries: the principal's threads of a graph, one thread, its applied changes, and
 * deleting one. Another user's thread is not_found, never forbidden (an automation's thread belongs to every editor
 * and admin of its workspace).
 */
export class ThreadQueries {
  constructor(
    private readonly threads: ThreadService,
    private readonly operations: OperationService,
    private readonly memory?: MemoryService,
  ) {}

  /** POST /api/ai/threads: newest first. */
  listThreads(principal: Principal, graphKey: string): Promise<ThreadSummary[]> {
    return this.threads.list(principal, graphKey);
  }

  /** GET /api/ai/thread/:threadId (system and context messages left out). */
  async getThread(principal: Principal, threadId: string): Promise<ThreadView> {
    return toThreadView(await this.threads.load(principal, threadId));
  }

  /** GET /api/ai/thread/:threadId/changes: every change applied (or sent to the editor) for the thread, oldest first. */
  async listChanges(principal: Principal, threadId: string): Promise<ThreadChangeView[]> {
    const thread = await this.threads.load(principal, threadId);
    return toThreadChangesView(thread, await this.operations.listForThread(principal.workspace, thread.threadId));
  }

  /**
   * DELETE /api/ai/thread/:threadId, with its memory (MemoryService deletes that first); its change log stays until its
   * retention ends. not_found when not the principal's.
   */
  async deleteThread(principal: Principal, threadId: string): Promise<void> {
    if (this.memory) await this.memory.deleteThread(principal, threadId);
    else await this.threads.delete(principal, threadId);
  }
}

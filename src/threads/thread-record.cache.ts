import type { ThreadRecord } from './thread.types';

/**
 * Bounded least-recently-used cache of thread records (THREAD_CACHE_SIZE entries). Map keeps
 * insertion order, so re-inserting on read moves an entry to the young end and the first key is
 * the oldest. Records are frozen by ThreadStore: sharing one between concurrent readers is safe.
 */
export class ThreadRecordCache {
  private readonly entries = new Map<string, ThreadRecord>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(threadId: string): ThreadRecord | undefined {
    const record = this.entries.get(threadId);
    if (record === undefined) return undefined;
    this.entries.delete(threadId);
    this.entries.set(threadId, record);
    return record;
  }

  set(record: ThreadRecord): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(record.threadId);
    this.entries.set(record.threadId, record);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(threadId: string): void {
    this.entries.delete(threadId);
  }

  clear(): void {
    this.entries.clear();
  }
}

import { LRUCache } from 'lru-cache';
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import type { ThreadMessage, ThreadRecord } from './thread.types';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** A cached thread: its head fields at once, its messages either as objects (hot) or deflated JSON (idle). */
export interface CachedThread {
  readonly revision: number;
  readonly threadId: string;
}

interface Entry extends CachedThread {
  record: ThreadRecord | null;
  packed: { head: Omit<ThreadRecord, 'messages'>; messages: Buffer } | null;
  lastUsedAt: number;
  packing: boolean;
}

export interface ThreadRecordCacheOptions {
  maxEntries: number;
  /** A record unused for this long has its messages deflated (DESIGN.md: < 50 KB per idle cached thread). */
  packAfterIdleMs: number;
  clock?: () => number;
}

/**
 * Bounded least-recently-used cache of thread records (THREAD_CACHE_SIZE entries, lru-cache). A
 * record in use stays as objects (frozen, shared by readers); once idle its messages are deflated
 * on the libuv thread pool (text compresses ~3x) and inflated again on the next read.
 */
export class ThreadRecordCache {
  /** Null with a size of 0: nothing is cached. */
  private readonly entries: LRUCache<string, Entry> | null;
  private readonly clock: () => number;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly options: ThreadRecordCacheOptions) {
    this.clock = options.clock ?? Date.now;
    this.entries = options.maxEntries > 0 ? new LRUCache<string, Entry>({ max: options.maxEntries }) : null;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** Starts packing idle records periodically (never keeps the process alive). */
  start(): void {
    if (this.sweeper || !this.entries) return;
    this.sweeper = setInterval(() => void this.packIdle(), this.options.packAfterIdleMs);
    this.sweeper.unref();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** The cached entry (its revision is known without unpacking), marked as used. */
  get(threadId: string): CachedThread | undefined {
    const entry = this.entries?.get(threadId);
    if (entry === undefined) return undefined;
    entry.lastUsedAt = this.clock();
    return entry;
  }

  /** The record of an entry returned by get(): the shared object while hot, a fresh one from an idle entry. */
  async read(cached: CachedThread): Promise<ThreadRecord> {
    const entry = cached as Entry;
    if (entry.record) return entry.record;
    const packed = entry.packed as NonNullable<Entry['packed']>;
    const messages = JSON.parse((await inflate(packed.messages)).toString('utf8')) as ThreadMessage[];
    return Object.freeze({ ...packed.head, messages: Object.freeze(messages) as ThreadMessage[] });
  }

  set(record: ThreadRecord): void {
    this.entries?.set(record.threadId, {
      threadId: record.threadId,
      revision: record.revision,
      record,
      packed: null,
      lastUsedAt: this.clock(),
      packing: false,
    });
  }

  delete(threadId: string): void {
    this.entries?.delete(threadId);
  }

  /** Deflates the messages of every record unused for packAfterIdleMs. Resolves when done. */
  async packIdle(): Promise<void> {
    const idleSince = this.clock() - this.options.packAfterIdleMs;
    const idle = [...(this.entries?.values() ?? [])].filter(
      (entry) => entry.record && !entry.packing && entry.lastUsedAt <= idleSince,
    );
    await Promise.all(idle.map((entry) => this.pack(entry, idleSince)));
  }

  private async pack(entry: Entry, idleSince: number): Promise<void> {
    const record = entry.record as ThreadRecord;
    entry.packing = true;
    try {
      const messages = await deflate(Buffer.from(JSON.stringify(record.messages), 'utf8'), { level: 1 });
      // Replaced, evicted or used again while deflating: leave it as it is now.
      if (this.entries?.peek(entry.threadId) !== entry || entry.record !== record || entry.lastUsedAt > idleSince)
        return;
      const { messages: _objects, ...head } = record;
      entry.packed = { head, messages };
      entry.record = null;
    } finally {
      entry.packing = false;
    }
  }
}

import { MemoryCursor, MemoryFilter, MemoryLevel, MemoryRecord, MemoryVector, NodeMention } from './memory-record';

/**
 * Persistence of conversation memory (port; adapters: SQLite, ArangoDB; one contract suite in
 * test/contract/memory-repository.contract.ts). Every method is scoped by workspace, except the
 * retention trim, which runs for the whole service.
 */
export interface MemoryRepository {
  /**
   * Stores a record unless one with its memoryId exists (ids are derived from what a record covers,
   * so two instances writing the same record store it once). A summary advances its thread's cursor
   * (level1End / level2End) to its range end in the same atomic write. True when written. Throws
   * AppError not_found, writing nothing, once the thread's memory was deleted (deleteThread) or the thread
   * is gone: an update still in flight then never brings a deleted thread's memory back.
   */
  insert(record: MemoryRecord): Promise<boolean>;
  /** Records the embedding of a stored record (computed after it was stored); nothing when it is gone. */
  setEmbedding(workspace: string, memoryId: string, embedding: Float32Array, model: string): Promise<void>;
  /** The thread's records matching the filter, oldest first (createdTime; at the same time, in conversation order, turns before summaries). */
  list(workspace: string, threadId: string, filter?: MemoryFilter): Promise<MemoryRecord[]>;
  /** The vectors of the thread's records embedded by `model` (what recall compares), oldest first. */
  vectors(workspace: string, threadId: string, model: string): Promise<MemoryVector[]>;
  /** How far summarization went in the thread (zeros when nothing was summarized). */
  cursor(workspace: string, threadId: string): Promise<MemoryCursor>;
  /**
   * The distinct (node key, fingerprint) pairs mentioned by records of the graph that are not stale
   * yet, restricted to `nodeKeys` unless 'all'.
   */
  mentions(workspace: string, graphKey: string, nodeKeys: readonly string[] | 'all'): Promise<NodeMention[]>;
  /**
   * Marks stale every record of the graph that mentions one of these (key, fingerprint) pairs and is
   * not stale yet (those nodes changed or were deleted since), and every summary above such a record
   * (what summarizes an outdated record is outdated too). Returns the number of records marked.
   */
  markStale(workspace: string, graphKey: string, outdated: readonly NodeMention[], now: number): Promise<number>;
  /** Marks stale these records (of the workspace) and every summary above them; returns the number marked. */
  markRecordsStale(workspace: string, memoryIds: readonly string[], now: number): Promise<number>;
  /**
   * Removes every record (and the cursor) of a thread, and refuses its later inserts (insert: not_found);
   * returns the number of records removed.
   */
  deleteThread(workspace: string, threadId: string): Promise<number>;
  /**
   * Retention: removes records of `level` created before `before` (epoch ms), in every workspace, but only
   * what a higher level already covers: a level-1 record only within its thread's level-2 cursor (one not
   * summarized at level 2 yet is still to be); level 2, the highest, whatever it covers.
   */
  trim(level: MemoryLevel, before: number): Promise<number>;
  /** Retention: forgets the marks deleteThread left (refusing inserts) that are older than `before`; returns how many. */
  forgetDeletedThreads(before: number): Promise<number>;
}

import { ThreadCommit, ThreadCommitResult, ThreadHead, ThreadRecord, ThreadSummary, UsageTotals } from './thread.types';

export interface NewThread {
  threadId: string;
  workspace: string;
  userId: string;
  graphKey: string;
  title: string;
  createdTime: number;
}

export interface IdempotencyScope {
  workspace: string;
  userId: string;
  key: string;
}

export type IdempotencyReservation =
  | { state: 'reserved' }
  | { state: 'in_progress' }
  | { state: 'completed'; response: unknown };

/**
 * Persistence of threads (port; adapters: SQLite, ArangoDB). Shared by every instance: a thread
 * written by one process continues in another (roaming). Ownership is checked by ThreadStore.
 */
export interface ThreadRepository {
  create(thread: NewThread): Promise<ThreadRecord>;
  get(threadId: string): Promise<ThreadRecord | null>;
  /**
   * Revision and usage only: the cheap freshness check of the cache. Usage is part of it because
   * addUsage does not bump the revision (a run records usage between its own commits).
   */
  getHead(threadId: string): Promise<ThreadHead | null>;
  list(workspace: string, userId: string, graphKey: string): Promise<ThreadSummary[]>;
  delete(threadId: string): Promise<boolean>;
  /**
   * Appends atomically. Throws ThreadRevisionConflictError when the stored revision is not
   * `expectedRevision` (and the operation was not already applied).
   */
  commit(threadId: string, commit: ThreadCommit): Promise<ThreadCommitResult>;

  /** Run lease: one run per thread at a time, across processes. True when `holder` now holds it. */
  acquireLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  renewLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  releaseLease(threadId: string, holder: string): Promise<void>;

  /** Adds usage to the thread (when given) and to the workspace totals; never lost, even for failed runs. */
  addUsage(workspace: string, threadId: string | null, usage: UsageTotals, now: number): Promise<void>;
  getWorkspaceUsage(workspace: string): Promise<UsageTotals>;

  /**
   * Idempotency-Key of POST /api/ai/chat. A reservation ('reserved') holds the key for `holdMs` only,
   * renewed while its request runs, so one left by a crashed process frees the key soon; an expired
   * record (in progress or completed) counts as absent.
   */
  reserveIdempotencyKey(scope: IdempotencyScope, holdMs: number, now: number): Promise<IdempotencyReservation>;
  /** Extends a live in-progress reservation to `now + holdMs`; false when there is none (expired, released or completed). */
  renewIdempotencyKey(scope: IdempotencyScope, holdMs: number, now: number): Promise<boolean>;
  /** Stores the first answer of an in-progress reservation, kept `keepMs` from the reservation's creation. */
  completeIdempotencyKey(scope: IdempotencyScope, response: unknown, keepMs: number): Promise<void>;
  releaseIdempotencyKey(scope: IdempotencyScope): Promise<void>;

  /** Releases what the adapter holds of its own (never the connection); called by its persistence module at shutdown. */
  close?(): Promise<void>;
}

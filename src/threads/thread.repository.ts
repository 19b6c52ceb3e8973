import {
  PendingThread,
  ThreadCommit,
  ThreadCommitResult,
  ThreadHead,
  ThreadRecord,
  ThreadSummary,
  ThreadType,
  UsageTotals,
} from './thread.types';

export interface NewThread {
  threadId: string;
  workspace: string;
  userId: string;
  graphKey: string;
  title: string;
  createdTime: number;
  /** Absent: chat. */
  type?: ThreadType;
  /** The automation whose run the thread is (type automation). */
  automationId?: string;
}

/**
 * What a run creating a thread writes with it (ThreadRepository.create): its run lease, taken for
 * `holder` until `now + ttlMs`, and its first round (the question, revision 0 → 1).
 */
export interface ThreadStart {
  lease: { holder: string; ttlMs: number; now: number };
  firstRound: ThreadCommit;
}

/** The record `create` returns with a ThreadStart: the new thread with its first round committed. */
export function withFirstRound(
  created: ThreadRecord,
  firstRound: ThreadCommit,
  committed: ThreadCommitResult,
): ThreadRecord {
  return {
    ...created,
    messages: firstRound.append,
    pendingInterrupt: firstRound.pendingInterrupt ?? null,
    title: firstRound.title ?? created.title,
    revision: committed.revision,
    lastUpdatedTime: committed.lastUpdatedTime,
  };
}

/** A run's usage, recorded as its lease is released (ThreadRepository.releaseLease, ThreadRepository.commit). */
export interface RunUsageRecord {
  workspace: string;
  usage: UsageTotals;
  now: number;
}

/** The end of a run written with its last round (ThreadRepository.commit): its lease released, its usage recorded. */
export interface RunEndRecord {
  /** The lease's holder: the lease is released only while it holds it. */
  holder: string;
  /** Absent: the run made no upstream call. */
  usage?: RunUsageRecord;
}

export interface IdempotencyScope {
  workspace: string;
  userId: string;
  key: string;
}

export type IdempotencyReservation =
  { state: 'reserved' } | { state: 'in_progress' } | { state: 'completed'; response: unknown };

/**
 * A repository's answer to a reservation: when it is the caller's, the token that proves it. Renew,
 * complete and release act only on the reservation holding that token, so a holder whose reservation
 * lapsed (and was taken over by a retry) can never touch the newer one.
 */
export type IdempotencyClaim =
  { state: 'reserved'; token: string } | Exclude<IdempotencyReservation, { state: 'reserved' }>;

/**
 * Persistence of threads (port; adapters: SQLite, ArangoDB). Shared by every instance: a thread
 * written by one process continues in another (roaming). Ownership is checked by ThreadService.
 */
export interface ThreadRepository {
  /**
   * A new thread. With `start`, also its run lease and its first round: the record returned is then
   * at revision 1 with those messages. Both stores write all of it at once (a new conversation's setup
   * is one write instead of three): SQLite in one transaction, ArangoDB in one stream
   * transaction; a failure leaves no thread.
   */
  create(thread: NewThread, start?: ThreadStart): Promise<ThreadRecord>;
  get(threadId: string): Promise<ThreadRecord | null>;
  /**
   * Revision and usage only: the cheap freshness check of the cache. Usage is part of it because
   * addUsage does not bump the revision (a run records usage between its own commits).
   */
  getHead(threadId: string): Promise<ThreadHead | null>;
  list(workspace: string, userId: string, graphKey: string): Promise<ThreadSummary[]>;
  /**
   * Threads of the workspace with a pending interrupt, newest interrupt first, at most `limit`: the
   * user's own chat threads, plus every automation thread when `includeAutomations` (editors and admins).
   */
  listPending(workspace: string, userId: string, includeAutomations: boolean, limit: number): Promise<PendingThread[]>;
  delete(threadId: string): Promise<boolean>;
  /**
   * Appends atomically. Throws ThreadRevisionConflictError when the stored revision is not
   * `expectedRevision` (and the operation was not already applied).
   *
   * With `end` (the run's last round), the same write also releases the run's lease and records its usage, as
   * releaseLease does: one transaction on the embedded store, one AQL query on ArangoDB, so a refused round
   * releases nothing. A replay (the operation applied already, by this same call's earlier attempt) still releases
   * the lease but adds no usage: the write that applied the round recorded it.
   */
  commit(threadId: string, commit: ThreadCommit, end?: RunEndRecord): Promise<ThreadCommitResult>;

  /** Run lease: one run per thread at a time, across processes. True when `holder` now holds it. */
  acquireLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  renewLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  /**
   * Releases the lease when `holder` holds it. With `usage`, also adds it as addUsage does, whoever
   * holds the lease: the end of a run is one write on the embedded store (one transaction), two queries
   * on ArangoDB (usage, then the release).
   */
  releaseLease(threadId: string, holder: string, usage?: RunUsageRecord): Promise<void>;

  /** Adds usage to the thread (when given) and to the workspace totals; never lost, even for failed runs. */
  addUsage(workspace: string, threadId: string | null, usage: UsageTotals, now: number): Promise<void>;
  getWorkspaceUsage(workspace: string): Promise<UsageTotals>;

  /**
   * Idempotency-Key of POST /api/ai/chat. A reservation ('reserved') holds the key for `holdMs` only,
   * renewed while its request runs, so one left by a crashed process frees the key soon; an expired
   * record (in progress or completed) counts as absent.
   */
  reserveIdempotencyKey(scope: IdempotencyScope, holdMs: number, now: number): Promise<IdempotencyClaim>;
  /**
   * Extends the live in-progress reservation holding `token` to `now + holdMs`; false when there is
   * none (expired, released, completed, or another reservation holds the key now).
   */
  renewIdempotencyKey(scope: IdempotencyScope, token: string, holdMs: number, now: number): Promise<boolean>;
  /**
   * Stores the first answer on the in-progress reservation holding `token` (expired or not, as long as
   * no other took the key), kept `keepMs` from the reservation's creation; false when there is none.
   */
  completeIdempotencyKey(scope: IdempotencyScope, token: string, response: unknown, keepMs: number): Promise<boolean>;
  /** Frees the key when the in-progress reservation holding `token` still has it; false otherwise. */
  releaseIdempotencyKey(scope: IdempotencyScope, token: string): Promise<boolean>;

  /** Releases what the adapter holds of its own (never the connection); called by its persistence module at shutdown. */
  close?(): Promise<void>;
}

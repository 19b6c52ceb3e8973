import { randomUUID } from 'node:crypto';
import { Database } from 'arangojs';
import { ARANGO_ERROR_NUM } from '../../database/arango/arango-error.translator';
import { AppError } from '../../errors/app-error';
import {
  IdempotencyClaim,
  IdempotencyScope,
  NewThread,
  RunEndRecord,
  RunUsageRecord,
  ThreadRepository,
  ThreadStart,
  withFirstRound,
} from '../thread.repository';
import { ThreadRevisionConflictError } from '../thread-revision-conflict.error';
import {
  EMPTY_USAGE,
  PendingThread,
  ThreadCommit,
  ThreadCommitResult,
  ThreadHead,
  ThreadRecord,
  ThreadSummary,
  UsageTotals,
} from '../thread.types';
import { hashedDocumentKey } from '../../database/arango/arango-hashed.key';
import {
  ArangoThreadDocument,
  ArangoThreadDocumentMapper,
  PendingThreadRow,
  shownMessageCount,
  StoredThreadDocument,
  ThreadSummaryRow,
} from './arango-thread-document.mapper';
import { ARANGO_THREAD_NAMES } from './arango-thread.names';
import { ArangoThreadQueries, IdempotencyEntry, LeaseParams, UsageParams } from './arango-thread.queries';
import {
  ArangoThreadQueryRunner,
  DEFAULT_WRITE_CONFLICT_RETRY,
  isArangoErrorNum,
  RUN_AGAIN,
  WriteConflictRetryPolicy,
} from './arango-thread-query.runner';
import { ArangoThreadSchema } from './arango-thread.schema';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';

/**
 * Operation ids a thread document keeps. Replaying an older one still changes nothing: its expected
 * revision is at least this many commits behind, so it is refused as a revision conflict.
 */
export const APPLIED_OPERATIONS_KEPT = 100;

/**
 * How long the TTL indexes leave a lease or an Idempotency-Key record past its own expiry before
 * deleting it: expiry is decided by the queries with the callers' clock; cleanup runs on the server's
 * clock, so it waits out any skew between them.
 */
export const CLEANUP_GRACE_SECONDS = 3600;

export interface ArangoThreadRepositoryOptions {
  retry?: WriteConflictRetryPolicy;
  /** Time stamped on commits (lastUpdatedTime). */
  clock?: () => number;
}

interface CommitState {
  revision: number;
  lastUpdatedTime: number;
  replayed: boolean;
}

/**
 * ThreadRepository on ArangoDB (STORE=arango): threads are documents of `nodius_ai_threads` in the
 * shape Nodius stores (roaming: any instance reads what another wrote), leases, workspace usage and
 * Idempotency-Keys live in their own collections (ARANGO_THREAD_NAMES). Every method is one AQL
 * query, one stream transaction (a new conversation: its thread, first round and lease), or a short
 * sequence that is safe to repeat:
 *   - commit: one compare-and-set UPDATE of the thread (expected revision, operation id not among
 *     the last APPLIED_OPERATIONS_KEPT, `_rev` unchanged since read); when it does not apply, one
 *     read says why (replayed → applied false; other revision → ThreadRevisionConflictError; gone →
 *     not_found); a usage write that moved `_rev` in between just makes it run again; a run's last round
 *     (with its end) is the same query with the run's usage and the release of its lease, written only
 *     when the round applies;
 *   - addUsage: thread and workspace totals in one query, without bumping the revision;
 *   - leases and Idempotency-Keys: a conditional UPSERT on the record's key, so of two concurrent
 *     callers exactly one writes; the other's write fails, runs again and sees the winner.
 * The connection belongs to ArangoPersistenceModule (shared with the graph store): this class never closes it.
 * An unreachable server makes each call fail with `store_unavailable` (503, retryable).
 */
export class ArangoThreadRepository implements ThreadRepository {
  private readonly queries: ArangoThreadQueries;
  private readonly runner: ArangoThreadQueryRunner;
  private readonly clock: () => number;

  constructor(db: Database, options: ArangoThreadRepositoryOptions = {}) {
    this.queries = new ArangoThreadQueries({
      threads: db.collection(ARANGO_THREAD_NAMES.threads),
      leases: db.collection(ARANGO_THREAD_NAMES.leases),
      workspaceUsage: db.collection(ARANGO_THREAD_NAMES.workspaceUsage),
      idempotencyKeys: db.collection(ARANGO_THREAD_NAMES.idempotencyKeys),
    });
    this.runner = new ArangoThreadQueryRunner(db, options.retry ?? DEFAULT_WRITE_CONFLICT_RETRY);
    this.clock = options.clock ?? Date.now;
  }

  /** Ensures the collections and indexes (idempotent, race-safe), then returns the repository. */
  static async open(db: Database, options: ArangoThreadRepositoryOptions = {}): Promise<ArangoThreadRepository> {
    await runArangoSchemaSetup(db, 'thread schema', () => new ArangoThreadSchema(db).ensure());
    return new ArangoThreadRepository(db, options);
  }

  async create(thread: NewThread, start?: ThreadStart): Promise<ThreadRecord> {
    const document = ArangoThreadDocumentMapper.toNewDocument(thread);
    if (start) return this.createWithFirstRound(thread, document, start);
    try {
      await this.runner.query(this.queries.insertThread(document));
    } catch (error) {
      if (isArangoErrorNum(error, ARANGO_ERROR_NUM.uniqueConstraintViolated))
        throw AppError.conflict('A thread with this id already exists');
      throw this.runner.translate(error, 'threads.create');
    }
    return ArangoThreadDocumentMapper.toRecord(document);
  }

  /**
   * A new conversation's setup in one stream transaction, as the embedded store's one write: the thread
   * document already holding its first round (revision 1, the round's operation id applied) and its
   * run lease. A failure leaves nothing: never an empty titled thread, never a lease without a thread.
   */
  private async createWithFirstRound(
    thread: NewThread,
    document: ArangoThreadDocument,
    start: ThreadStart,
  ): Promise<ThreadRecord> {
    const { firstRound } = start;
    const { holder, ttlMs, now } = start.lease;
    const lastUpdatedTime = this.clock();
    const withRound: ArangoThreadDocument = {
      ...document,
      ...ArangoThreadDocumentMapper.toCommitPatch(firstRound),
      conversationHistory: firstRound.append,
      revision: firstRound.expectedRevision + 1,
      appliedOperationIds: [firstRound.operationId],
      messageCount: shownMessageCount(firstRound.append),
      lastUpdatedTime,
    };
    await this.runner.transaction(
      { write: [ARANGO_THREAD_NAMES.threads, ARANGO_THREAD_NAMES.leases] },
      'threads.create',
      async (step) => {
        try {
          await step(this.queries.insertThread(withRound));
        } catch (error) {
          if (isArangoErrorNum(error, ARANGO_ERROR_NUM.uniqueConstraintViolated))
            throw AppError.conflict('A thread with this id already exists');
          throw error;
        }
        const [held] = await step<boolean>(this.queries.acquireLease(leaseParams(thread.threadId, holder, ttlMs, now)));
        if (held !== true)
          throw new AppError('thread_busy', 'Another request is running on this thread', { threadId: thread.threadId });
      },
    );
    return withFirstRound(ArangoThreadDocumentMapper.toRecord(document), firstRound, {
      applied: true,
      revision: withRound.revision,
      lastUpdatedTime,
    });
  }

  async get(threadId: string): Promise<ThreadRecord | null> {
    const [document] = await this.runner.all<StoredThreadDocument>('threads.get', this.queries.thread(threadId));
    return document ? ArangoThreadDocumentMapper.toRecord(document) : null;
  }

  async getHead(threadId: string): Promise<ThreadHead | null> {
    const [head] = await this.runner.all<{ revision: number | null; usage: unknown }>(
      'threads.getHead',
      this.queries.head(threadId),
    );
    return head ? ArangoThreadDocumentMapper.toHead(head) : null;
  }

  async list(workspace: string, userId: string, graphKey: string): Promise<ThreadSummary[]> {
    const rows = await this.runner.all<ThreadSummaryRow>(
      'threads.list',
      this.queries.summaries(workspace, userId, graphKey),
    );
    return rows.map((row) => ArangoThreadDocumentMapper.toSummary(row));
  }

  async listPending(
    workspace: string,
    userId: string,
    includeAutomations: boolean,
    limit: number,
  ): Promise<PendingThread[]> {
    const rows = await this.runner.all<PendingThreadRow>(
      'threads.listPending',
      this.queries.pending(workspace, userId, includeAutomations, limit),
    );
    return rows
      .map((row) => ArangoThreadDocumentMapper.toPendingThread(row))
      .filter((row): row is PendingThread => row !== null);
  }

  async delete(threadId: string): Promise<boolean> {
    return this.runner.withRetries('threads.delete', async (query) => {
      const [result] = await query<{ removed: boolean }>(this.queries.removeThread(threadId));
      return result?.removed === true;
    });
  }

  async commit(threadId: string, commit: ThreadCommit, end?: RunEndRecord): Promise<ThreadCommitResult> {
    const params = {
      threadId,
      operationId: commit.operationId,
      expectedRevision: commit.expectedRevision,
      discardFrom: commit.discardFrom ?? null,
      append: commit.append,
      patch: ArangoThreadDocumentMapper.toCommitPatch(commit),
      now: this.clock(),
      operationsKept: APPLIED_OPERATIONS_KEPT,
    };
    const write = end
      ? this.queries.commitLastRound(params, {
          holder: end.holder,
          usage: end.usage ? this.usageParams(end.usage.workspace, threadId, end.usage.usage, end.usage.now) : null,
        })
      : this.queries.commit(params);
    return this.runner.withRetries('threads.commit', async (query) => {
      let written: Array<{ revision: number; lastUpdatedTime: number }> = [];
      try {
        written = await query<{ revision: number; lastUpdatedTime: number }>(write);
      } catch (error) {
        // Lost to a concurrent writer (or the thread went away) between its read and its write: classify below.
        if (
          !isArangoErrorNum(error, ARANGO_ERROR_NUM.writeConflict) &&
          !isArangoErrorNum(error, ARANGO_ERROR_NUM.documentNotFound)
        )
          throw error;
      }
      if (written.length > 0)
        return { applied: true, revision: written[0].revision, lastUpdatedTime: written[0].lastUpdatedTime };

      const [state] = await query<CommitState>(this.queries.commitState(threadId, commit.operationId));
      if (!state) throw AppError.notFound('Thread not found');
      if (state.replayed) {
        // The attempt that applied the round ended the run with it; a lease still there is released, no usage twice.
        if (end) await ignoreDocumentNotFound(query(this.queries.releaseLease(threadId, end.holder)));
        return { applied: false, revision: state.revision, lastUpdatedTime: state.lastUpdatedTime };
      }
      if (state.revision !== commit.expectedRevision)
        throw new ThreadRevisionConflictError(threadId, commit.expectedRevision, state.revision);
      return RUN_AGAIN; // same revision: a usage write changed the document meanwhile
    });
  }

  async acquireLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const params = leaseParams(threadId, holder, ttlMs, now);
    return this.runner.withRetries(
      'threads.acquireLease',
      async (query) => (await query<boolean>(this.queries.acquireLease(params)))[0] === true,
      () => false, // still contended after every attempt: someone else is taking it
    );
  }

  async renewLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const params = leaseParams(threadId, holder, ttlMs, now);
    return this.runner.withRetries(
      'threads.renewLease',
      async (query) => (await query(this.queries.renewLease(params))).length > 0,
    );
  }

  async releaseLease(threadId: string, holder: string, usage?: RunUsageRecord): Promise<void> {
    if (usage) await this.addUsage(usage.workspace, threadId, usage.usage, usage.now);
    await this.runner.withRetries('threads.releaseLease', async (query) => {
      await ignoreDocumentNotFound(query(this.queries.releaseLease(threadId, holder)));
    });
  }

  async addUsage(workspace: string, threadId: string | null, usage: UsageTotals, now: number): Promise<void> {
    const params = this.usageParams(workspace, threadId, usage, now);
    await this.runner.withRetries('threads.addUsage', async (query) => {
      await query(this.queries.addUsage(params));
    });
  }

  private usageParams(workspace: string, threadId: string | null, usage: UsageTotals, now: number): UsageParams {
    return {
      workspaceKey: workspaceKey(workspace),
      workspace,
      threadId,
      usage: ArangoThreadDocumentMapper.toUsage(usage),
      now,
    };
  }

  async getWorkspaceUsage(workspace: string): Promise<UsageTotals> {
    const [usage] = await this.runner.all<unknown>(
      'threads.getWorkspaceUsage',
      this.queries.workspaceUsage(workspaceKey(workspace)),
    );
    return usage === undefined ? { ...EMPTY_USAGE } : ArangoThreadDocumentMapper.toUsage(usage);
  }

  async reserveIdempotencyKey(scope: IdempotencyScope, holdMs: number, now: number): Promise<IdempotencyClaim> {
    const entry: IdempotencyEntry = {
      _key: idempotencyKey(scope),
      workspace: scope.workspace,
      userId: scope.userId,
      key: scope.key,
      state: 'in_progress',
      response: null,
      reservation: randomUUID(),
      createdTime: now,
      expiresAt: now + holdMs,
    };
    const retentionSeconds = retention(holdMs);
    return this.runner.withRetries<IdempotencyClaim>('threads.reserveIdempotencyKey', async (query) => {
      const [reserved] = await query<boolean>(this.queries.reserveIdempotencyKey(entry, now, retentionSeconds));
      if (reserved === true) return { state: 'reserved', token: entry.reservation };
      const [live] = await query<{ state: string; response: unknown }>(this.queries.idempotencyState(entry._key, now));
      if (!live) return RUN_AGAIN; // released or expired in between: try to reserve it again
      return live.state === 'completed'
        ? { state: 'completed', response: live.response ?? null }
        : { state: 'in_progress' };
    });
  }

  async renewIdempotencyKey(scope: IdempotencyScope, token: string, holdMs: number, now: number): Promise<boolean> {
    const renew = this.queries.renewIdempotencyKey(idempotencyKey(scope), token, now, now + holdMs, retention(holdMs));
    return this.runner.withRetries('threads.renewIdempotencyKey', async (query) => (await query(renew)).length > 0);
  }

  async completeIdempotencyKey(
    scope: IdempotencyScope,
    token: string,
    response: unknown,
    keepMs: number,
  ): Promise<boolean> {
    const complete = this.queries.completeIdempotencyKey(
      idempotencyKey(scope),
      token,
      response,
      keepMs,
      retention(keepMs),
    );
    return this.runner.withRetries(
      'threads.completeIdempotencyKey',
      async (query) => (await query(complete)).length > 0,
    );
  }

  async releaseIdempotencyKey(scope: IdempotencyScope, token: string): Promise<boolean> {
    const release = this.queries.releaseIdempotencyKey(idempotencyKey(scope), token);
    return this.runner.withRetries('threads.releaseIdempotencyKey', async (query) => {
      try {
        return (await query(release)).length > 0;
      } catch (error) {
        // Removed concurrently (expired and cleaned up): there is nothing left to release.
        if (isArangoErrorNum(error, ARANGO_ERROR_NUM.documentNotFound)) return false;
        throw error;
      }
    });
  }
}

function leaseParams(threadId: string, holder: string, ttlMs: number, now: number): LeaseParams {
  return { threadId, holder, now, expiresAt: now + ttlMs, retentionSeconds: retention(ttlMs) };
}

function retention(ttlMs: number): number {
  return Math.ceil(ttlMs / 1000) + CLEANUP_GRACE_SECONDS;
}

function workspaceKey(workspace: string): string {
  return hashedDocumentKey('ws', [workspace]);
}

function idempotencyKey(scope: IdempotencyScope): string {
  return hashedDocumentKey('idem', [scope.workspace, scope.userId, scope.key]);
}

/** A removal that finds its document already gone (removed concurrently) has nothing left to do. */
async function ignoreDocumentNotFound(removal: Promise<unknown>): Promise<void> {
  try {
    await removal;
  } catch (error) {
    if (!isArangoErrorNum(error, ARANGO_ERROR_NUM.documentNotFound)) throw error;
  }
}

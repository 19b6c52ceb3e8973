import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { canEdit, type Principal } from '../auth/principal';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { Logger } from '../observability/logger';
import { withoutSupersededContexts } from './history/rag-context.locator';
import { IdempotencyReservationKeeper } from './idempotency-reservation.keeper';
import { generateSortableId, generateThreadId, isThreadIdShape } from './sortable-id.generator';
import { StringInterner } from './string.interner';
import { ThreadCommitValidationError } from './thread-commit-validation.error';
import { validateThreadCommit } from './thread-commit.validator';
import { ThreadRecordCache } from './thread-record.cache';
import { THREAD_REPOSITORY } from './thread-repository.token';
import { ThreadRevisionConflictError } from './thread-revision-conflict.error';
import { ThreadRunLease } from './thread-run.lease';
import type {
  IdempotencyReservation,
  IdempotencyScope,
  NewThread,
  RunEndRecord,
  ThreadRepository,
} from './thread.repository';
import type {
  PendingInterrupt,
  PendingThread,
  ThreadMessage,
  ThreadRecord,
  ThreadSummary,
  ThreadType,
  UsageTotals,
} from './thread.types';

/** The same Idempotency-Key from the same principal within 24 h returns the first answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_KEY_MAX_CHARS = 255;
/** Distinct system prompts shared between cached threads (one per graph, role and locale in use). */
const SYSTEM_PROMPTS_SHARED = 256;
/** A cached record unused this long is deflated (about a third of the memory). */
const PACK_AFTER_IDLE_MS = 30_000;

/** Most entries GET /api/ai/approvals answers. */
export const APPROVAL_QUEUE_MAX = 200;

const logger = new Logger('threads');

/** What a thread is for: absent, a chat. */
export interface ThreadOrigin {
  type: ThreadType;
  automationId?: string;
}

/** One atomic write of a run: a round's messages and/or the interrupt state (see ThreadService.commit). */
export interface ThreadRoundCommit {
  /**
   * Idempotency of the write: committing again with the same id changes nothing. Give the
   * same id when retrying a commit whose outcome is unknown; omitted, a fresh one is used.
   */
  operationId?: string;
  /** Removes this message and every later one first (a run's turn rolled back): it must be one of the thread's. */
  discardFrom?: string;
  append: ThreadMessage[];
  /** undefined leaves it as is; null clears it. */
  pendingInterrupt?: PendingInterrupt | null;
  title?: string;
}

/** What a commit did: the record after it, and whether it wrote (false: its operation id was already applied). */
export interface ThreadCommitReceipt {
  record: ThreadRecord;
  applied: boolean;
}

/**
 * The only door to threads for the agent and the transports: ownership (anyone but the owner gets
 * not_found, never forbidden), a bounded cache in front of the shared store (roaming: a thread
 * written by another instance is reloaded here with fresh content), atomic idempotent commits,
 * run leases (one run per thread across instances), usage and Idempotency-Key records.
 *
 * Records returned are frozen (record and messages array): build a new array to change anything,
 * and write through commit(). To keep idle cached threads small, their `messages` leave out the RAG
 * contexts of earlier questions (never sent to the model again: see toLlmMessages; still stored),
 * and share one instance of each distinct system prompt.
 */
@Injectable()
export class ThreadService implements BeforeApplicationShutdown {
  private readonly cache: ThreadRecordCache;
  private readonly leaseTtlMs: number;
  /** Identifies this process in lease holders (`<instance>:<run>`), which helps when reading the table. */
  private readonly instanceId = generateSortableId('i');
  private readonly activeLeases = new Set<ThreadRunLease>();
  private readonly systemPrompts = new StringInterner(SYSTEM_PROMPTS_SHARED);
  private readonly idempotencyReservations: IdempotencyReservationKeeper;

  constructor(
    @Inject(THREAD_REPOSITORY) private readonly repository: ThreadRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cache = new ThreadRecordCache({
      maxEntries: config.agent.threadCacheSize,
      packAfterIdleMs: PACK_AFTER_IDLE_MS,
    });
    this.cache.start();
    this.leaseTtlMs = config.agent.threadLeaseMs;
    this.idempotencyReservations = new IdempotencyReservationKeeper(repository, this.leaseTtlMs);
  }

  /** A new, empty thread owned by the principal (a chat unless `origin` says otherwise). `title`: see deriveThreadTitle. */
  async create(principal: Principal, graphKey: string, title: string, origin?: ThreadOrigin): Promise<ThreadRecord> {
    const now = Date.now();
    const record = await this.repository.create(
      this.newThread(principal, generateThreadId(now), graphKey, title, now, origin),
    );
    return this.created(principal, record);
  }

  /**
   * A new thread for a run (chat, automation), owned by the principal: created with the run's lease
   * held and its first round committed (`round`: the question), in one write on the embedded store.
   * The round is validated first as any commit (nothing is written when it is refused). The lease
   * renews itself until released, as acquireRun's.
   */
  async createForRun(
    principal: Principal,
    graphKey: string,
    title: string,
    round: ThreadRoundCommit,
    origin?: ThreadOrigin,
  ): Promise<{ thread: ThreadRecord; lease: ThreadRunLease }> {
    const now = Date.now();
    const threadId = generateThreadId(now);
    const append = this.validated(threadId, [], round.append);
    const holder = this.newLeaseHolder();
    const record = await this.repository.create(this.newThread(principal, threadId, graphKey, title, now, origin), {
      lease: { holder, ttlMs: this.leaseTtlMs, now },
      firstRound: {
        operationId: round.operationId ?? randomUUID(),
        expectedRevision: 0,
        append,
        pendingInterrupt: round.pendingInterrupt,
        title: round.title,
      },
    });
    return { thread: this.created(principal, record), lease: this.startLease(threadId, holder) };
  }

  /**
   * The thread, fresh: a cached record is reused only while the stored revision still matches, so a
   * thread continued by another instance is reloaded. not_found when it does not exist, belongs to
   * another workspace or user (an automation run belongs to every editor and admin of its workspace),
   * or (when `graphKey` is given) to another graph.
   */
  async load(principal: Principal, threadId: string, graphKey?: string): Promise<ThreadRecord> {
    const record = isThreadIdShape(threadId) ? await this.fresh(threadId) : null;
    if (!record || !owns(principal, record) || (graphKey !== undefined && record.graphKey !== graphKey)) {
      throw threadNotFound();
    }
    return record;
  }

  /** The principal's threads of one graph, newest first (POST /api/ai/threads). */
  async list(principal: Principal, graphKey: string): Promise<ThreadSummary[]> {
    return this.repository.list(principal.workspace, principal.userId, graphKey);
  }

  /**
   * The approval queue (GET /api/ai/approvals): threads waiting for a human that the principal may
   * answer, newest interrupt first: their own chats, and every automation run of the workspace for
   * editors and admins. At most APPROVAL_QUEUE_MAX.
   */
  listPending(principal: Principal): Promise<PendingThread[]> {
    return this.repository.listPending(principal.workspace, principal.userId, canEdit(principal), APPROVAL_QUEUE_MAX);
  }

  /** Deletes the principal's thread; not_found as load(). A run still holding it loses its lease. */
  async delete(principal: Principal, threadId: string): Promise<void> {
    await this.load(principal, threadId);
    await this.repository.delete(threadId);
    this.cache.delete(threadId);
    logger.info('thread_deleted', { threadId, workspace: principal.workspace });
  }

  /**
   * Appends a round atomically against `thread.revision` (optimistic concurrency) and returns the
   * new record (also cached). Every message is stamped with the thread's id, then the round is
   * validated (ThreadCommitValidationError, `internal`: nothing written, logged as
   * thread_commit_refused). Another writer got there first → AppError thread_busy (retryable;
   * nothing was written; isRevisionConflict tells it apart from a lease refusal). A replayed
   * operationId → the stored record, unchanged. Deleted meanwhile → not_found.
   */
  async commit(thread: ThreadRecord, round: ThreadRoundCommit): Promise<ThreadRecord> {
    return (await this.commitRound(thread, round)).record;
  }

  /**
   * commit(), also saying whether it wrote (false: a replay of an operation already applied). With `end` (a run's
   * last round, written under ThreadRunLease.endWith), the same write releases the run's lease and records its usage
   * (ThreadRepository.commit): nothing of it when the round is refused.
   */
  async commitRound(thread: ThreadRecord, round: ThreadRoundCommit, end?: RunEndRecord): Promise<ThreadCommitReceipt> {
    const kept = round.discardFrom === undefined ? thread.messages : messagesBefore(thread, round.discardFrom);
    const append = this.validated(thread.threadId, kept, round.append);
    let result;
    try {
      result = await this.repository.commit(
        thread.threadId,
        {
          operationId: round.operationId ?? randomUUID(),
          expectedRevision: thread.revision,
          ...(round.discardFrom === undefined ? {} : { discardFrom: round.discardFrom }),
          append,
          pendingInterrupt: round.pendingInterrupt,
          title: round.title,
        },
        end,
      );
    } catch (error) {
      this.cache.delete(thread.threadId);
      if (error instanceof ThreadRevisionConflictError) {
        logger.warn('thread_revision_conflict', {
          threadId: thread.threadId,
          expected: error.expectedRevision,
          actual: error.actualRevision,
        });
        throw new AppError(
          'thread_busy',
          'The thread was changed by another request',
          { threadId: thread.threadId },
          { cause: error },
        );
      }
      throw error;
    }
    if (!result.applied) {
      logger.info('thread_commit_replayed', { threadId: thread.threadId, revision: result.revision });
      const stored = await this.fresh(thread.threadId);
      if (!stored) throw threadNotFound();
      return { record: stored, applied: false };
    }
    const next = this.compact({
      ...thread,
      messages: [...kept, ...append],
      pendingInterrupt: round.pendingInterrupt === undefined ? thread.pendingInterrupt : round.pendingInterrupt,
      title: round.title ?? thread.title,
      revision: result.revision,
      lastUpdatedTime: result.lastUpdatedTime,
    });
    this.cache.set(next);
    return { record: next, applied: true };
  }

  /**
   * Takes the thread's run lease for this request, or throws AppError thread_busy (409, retryable)
   * when another request (on any instance) holds it. The lease renews itself until release().
   * Check ownership BEFORE calling this (a stranger must get not_found, not thread_busy): see beginRun.
   */
  async acquireRun(threadId: string): Promise<ThreadRunLease> {
    const lease = await this.tryAcquireRun(threadId);
    if (!lease) {
      logger.info('thread_busy', { threadId });
      throw new AppError('thread_busy', 'Another request is running on this thread', { threadId });
    }
    return lease;
  }

  /** acquireRun(), answering null instead of thread_busy (a message waiting for the thread tries again). */
  async tryAcquireRun(threadId: string): Promise<ThreadRunLease | null> {
    const holder = this.newLeaseHolder();
    if (!(await this.repository.acquireLease(threadId, holder, this.leaseTtlMs, Date.now()))) return null;
    return this.startLease(threadId, holder);
  }

  /**
   * load (ownership → not_found) → acquireRun (→ thread_busy) → load again, so the run starts from
   * the revision stored once it holds the thread. On failure nothing is held.
   */
  async beginRun(
    principal: Principal,
    threadId: string,
    graphKey?: string,
  ): Promise<{ thread: ThreadRecord; lease: ThreadRunLease }> {
    await this.load(principal, threadId, graphKey);
    const lease = await this.acquireRun(threadId);
    try {
      return { thread: await this.load(principal, threadId, graphKey), lease };
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  /** Records upstream usage against the workspace and (when given) the thread; for every run, even failed or aborted. */
  async addUsage(workspace: string, threadId: string | null, usage: UsageTotals): Promise<void> {
    await this.repository.addUsage(workspace, threadId, usage, Date.now());
  }

  async getWorkspaceUsage(workspace: string): Promise<UsageTotals> {
    return this.repository.getWorkspaceUsage(workspace);
  }

  /**
   * Idempotency-Key of POST /api/ai/chat, per principal; the answer is kept 24 h from the first
   * request. 'reserved': run, then complete() (or release() on failure, so a retry may run).
   * 'in_progress': the first request is still running. 'completed': answer with `response`, run nothing.
   * A reservation holds the key for THREAD_LEASE_MS, renewed while this process lives, so one left
   * by a crashed process stops blocking retries once that time has passed. Its token stays in this
   * process: completing or releasing acts only on the reservation this request made.
   */
  async reserveIdempotencyKey(principal: Principal, key: string): Promise<IdempotencyReservation> {
    const scope = idempotencyScope(principal, key);
    const claim = await this.repository.reserveIdempotencyKey(scope, this.leaseTtlMs, Date.now());
    if (claim.state !== 'reserved') return claim;
    this.idempotencyReservations.keep(scope, claim.token);
    return { state: 'reserved' };
  }

  async completeIdempotencyKey(principal: Principal, key: string, response: unknown): Promise<void> {
    const scope = idempotencyScope(principal, key);
    const token = this.idempotencyReservations.take(scope);
    const stored =
      token !== undefined && (await this.repository.completeIdempotencyKey(scope, token, response, IDEMPOTENCY_TTL_MS));
    // The reservation lapsed and a retry holds the key now: its answer is the one kept.
    if (!stored)
      logger.warn('idempotency_answer_not_kept', {
        workspace: scope.workspace,
        reason: token === undefined ? 'not reserved here' : 'reservation lost',
      });
  }

  async releaseIdempotencyKey(principal: Principal, key: string): Promise<void> {
    const scope = idempotencyScope(principal, key);
    const token = this.idempotencyReservations.take(scope);
    if (token !== undefined) await this.repository.releaseIdempotencyKey(scope, token);
  }

  /** Runs still holding a lease at shutdown let it go, so another instance can continue their threads at once. */
  async beforeApplicationShutdown(): Promise<void> {
    this.cache.stop();
    this.idempotencyReservations.stopAll();
    await Promise.all([...this.activeLeases].map((lease) => lease.release()));
  }

  /** The record as ThreadService hands it out and caches it: compact and frozen. */
  private compact(record: ThreadRecord): ThreadRecord {
    const messages = withoutSupersededContexts(record.messages).map((message) =>
      message.kind === 'system_prompt' && message.content !== null
        ? { ...message, content: this.systemPrompts.intern(message.content) }
        : message,
    );
    return Object.freeze({ ...record, messages: Object.freeze(messages) as ThreadMessage[] });
  }

  /** A thread just created: cached as stored, and logged. */
  private created(principal: Principal, record: ThreadRecord): ThreadRecord {
    const frozen = this.compact(record);
    this.cache.set(frozen);
    logger.info('thread_created', {
      threadId: record.threadId,
      workspace: principal.workspace,
      graphKey: record.graphKey,
    });
    return frozen;
  }

  /** A lease holder id: this instance, and the request. */
  private newLeaseHolder(): string {
    return `${this.instanceId}:${randomUUID()}`;
  }

  /** A lease just taken for `holder`: renewed until released, released at shutdown. */
  private startLease(threadId: string, holder: string): ThreadRunLease {
    const lease = new ThreadRunLease(this.repository, threadId, holder, this.leaseTtlMs, (ended) =>
      this.activeLeases.delete(ended),
    );
    this.activeLeases.add(lease);
    lease.start();
    return lease;
  }

  private newThread(
    principal: Principal,
    threadId: string,
    graphKey: string,
    title: string,
    now: number,
    origin?: ThreadOrigin,
  ): NewThread {
    return {
      threadId,
      workspace: principal.workspace,
      userId: principal.userId,
      graphKey,
      title,
      createdTime: now,
      ...(origin ? { type: origin.type, ...(origin.automationId ? { automationId: origin.automationId } : {}) } : {}),
    };
  }

  /** The round's messages stamped with the thread's id, validated against what it follows (logged when refused). */
  private validated(threadId: string, messages: readonly ThreadMessage[], append: ThreadMessage[]): ThreadMessage[] {
    const stamped = append.map((message) => (message.threadId === undefined ? { ...message, threadId } : message));
    try {
      validateThreadCommit(threadId, messages, stamped);
    } catch (error) {
      if (error instanceof ThreadCommitValidationError)
        logger.error('thread_commit_refused', { threadId, problem: error.problem });
      throw error;
    }
    return stamped;
  }

  /** Cache first, validated against the stored head; the stored record otherwise. */
  private async fresh(threadId: string): Promise<ThreadRecord | null> {
    const cached = this.cache.get(threadId);
    if (cached) {
      const head = await this.repository.getHead(threadId);
      if (!head) {
        this.cache.delete(threadId);
        return null;
      }
      if (head.revision === cached.revision) {
        const record = await this.cache.read(cached);
        if (sameUsage(head.usage, record.usage)) return record;
        const refreshed = Object.freeze({ ...record, usage: head.usage });
        this.cache.set(refreshed);
        return refreshed;
      }
    }
    const stored = await this.repository.get(threadId);
    if (!stored) {
      this.cache.delete(threadId);
      return null;
    }
    const frozen = this.compact(stored);
    this.cache.set(frozen);
    return frozen;
  }
}

/** The messages before `messageId` (a turn rolled back from it on); `internal` when the thread has no such message. */
function messagesBefore(thread: ThreadRecord, messageId: string): ThreadMessage[] {
  const at = thread.messages.findIndex((message) => message.id === messageId);
  if (at < 0) throw new AppError('internal', 'No such message to discard from', { threadId: thread.threadId });
  return thread.messages.slice(0, at);
}

/** A chat is its owner's; an automation run is every editor's and admin's of its workspace. */
function owns(principal: Principal, record: ThreadRecord): boolean {
  if (record.workspace !== principal.workspace) return false;
  return record.userId === principal.userId || (record.type === 'automation' && canEdit(principal));
}

/** The same answer for "does not exist" and "not yours" (no existence leak). */
function threadNotFound(): AppError {
  return AppError.notFound('Thread not found');
}

function idempotencyScope(principal: Principal, key: string): IdempotencyScope {
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_CHARS) {
    throw AppError.badRequest(`Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} characters`);
  }
  return { workspace: principal.workspace, userId: principal.userId, key };
}

function sameUsage(a: UsageTotals, b: UsageTotals): boolean {
  return (
    a.promptTokens === b.promptTokens &&
    a.completionTokens === b.completionTokens &&
    a.cachedTokens === b.cachedTokens &&
    a.totalTokens === b.totalTokens &&
    a.costUsd === b.costUsd &&
    a.llmCalls === b.llmCalls
  );
}

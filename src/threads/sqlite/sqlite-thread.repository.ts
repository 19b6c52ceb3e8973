import { SqliteGroupCommit } from '../../database/sqlite/sqlite-group-commit';
import type { Database, Statement } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
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
import { usageColumns } from './usage-columns';
import {
  EMPTY_USAGE,
  PendingInterrupt,
  PendingThread,
  ThreadCommit,
  ThreadCommitResult,
  ThreadHead,
  ThreadMessage,
  ThreadRecord,
  ThreadSummary,
  ThreadType,
  UsageTotals,
} from '../thread.types';

interface ThreadRow {
  thread_id: string;
  workspace: string;
  user_id: string;
  graph_key: string;
  title: string;
  type: ThreadType;
  automation_id: string | null;
  revision: number;
  message_count: number;
  visible_message_count: number;
  pending_interrupt: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  total_tokens: number;
  cost_usd: number;
  llm_calls: number;
  created_time: number;
  updated_time: number;
}

type UsageRow = Pick<
  ThreadRow,
  'prompt_tokens' | 'completion_tokens' | 'cached_tokens' | 'total_tokens' | 'cost_usd' | 'llm_calls'
>;

const USAGE_COLUMNS = 'prompt_tokens, completion_tokens, cached_tokens, total_tokens, cost_usd, llm_calls';

/**
 * ThreadRepository on the embedded SQLite file (tables of THREAD_TABLES_MIGRATION). Every method is
 * one statement or one `BEGIN IMMEDIATE` transaction (or one savepoint of a group commit's
 * transaction), so it is atomic across processes sharing the file (the write lock is
 * taken before anything is read; busy_timeout makes the other side wait).
 * The connection belongs to SqlitePersistenceModule: this class never closes it.
 */
export class SqliteThreadRepository implements ThreadRepository {
  private readonly statements: ReturnType<typeof prepare>;
  // The transactions of the request path, wrapped once: db.transaction() builds four wrapper
  // functions per call, and every question commits its rounds and ends its run.
  private readonly readRecord: (threadId: string) => ThreadRecord | null;
  private readonly commitRound: (threadId: string, commit: ThreadCommit, now: number) => ThreadCommitResult;
  private readonly commitLastRound: (
    threadId: string,
    commit: ThreadCommit,
    now: number,
    end: { holder: string; usage: Record<string, unknown> | null },
  ) => ThreadCommitResult;
  private readonly addUsageRows: (threadId: string | null, params: Record<string, unknown>) => void;
  private readonly releaseWithUsage: (threadId: string, holder: string, params: Record<string, unknown>) => void;
  private readonly insertStarted: (
    row: Record<string, unknown>,
    threadId: string,
    start: ThreadStart,
  ) => ThreadCommitResult;
  // The run's writes (thread creation, lease, round commits, usage) of concurrent conversations share
  // one transaction per event-loop turn (SqliteGroupCommit; each still atomic and durable when done).
  private readonly group: SqliteGroupCommit;

  constructor(private readonly db: Database) {
    this.statements = prepare(db);
    this.group = new SqliteGroupCommit(db);
    this.readRecord = db.transaction((threadId: string) => this.readRecordIn(threadId));
    this.commitRound = db.transaction((threadId: string, commit: ThreadCommit, now: number) =>
      this.commitRoundIn(threadId, commit, now),
    ).immediate;
    this.commitLastRound = db.transaction(
      (
        threadId: string,
        commit: ThreadCommit,
        now: number,
        end: { holder: string; usage: Record<string, unknown> | null },
      ) => {
        const result = this.commitRoundIn(threadId, commit, now);
        // A replayed round: the write that applied it recorded the usage.
        if (result.applied && end.usage) this.addUsageIn(threadId, end.usage);
        this.statements.releaseLease.run(threadId, end.holder);
        return result;
      },
    ).immediate;
    this.insertStarted = db.transaction((row: Record<string, unknown>, threadId: string, start: ThreadStart) => {
      this.statements.insertThread.run(row);
      const { holder, ttlMs, now } = start.lease;
      this.statements.acquireLease.run({ thread_id: threadId, holder, expires_at: now + ttlMs, now });
      return this.commitRoundIn(threadId, start.firstRound, now);
    }).immediate;
    this.addUsageRows = db.transaction((threadId: string | null, params: Record<string, unknown>) =>
      this.addUsageIn(threadId, params),
    ).immediate;
    this.releaseWithUsage = db.transaction((threadId: string, holder: string, params: Record<string, unknown>) => {
      this.addUsageIn(threadId, params);
      this.statements.releaseLease.run(threadId, holder);
    }).immediate;
  }

  async create(thread: NewThread, start?: ThreadStart): Promise<ThreadRecord> {
    const row = {
      thread_id: thread.threadId,
      workspace: thread.workspace,
      user_id: thread.userId,
      graph_key: thread.graphKey,
      title: thread.title,
      type: thread.type ?? 'chat',
      automation_id: thread.automationId ?? null,
      created_time: thread.createdTime,
    };
    const created: ThreadRecord = {
      ...thread,
      type: thread.type ?? 'chat',
      messages: [],
      pendingInterrupt: null,
      revision: 0,
      usage: { ...EMPTY_USAGE },
      lastUpdatedTime: thread.createdTime,
    };
    try {
      if (!start) {
        await this.group.run(() => this.statements.insertThread.run(row));
        return created;
      }
      // One transaction: the thread, its lease and its first round (the lease of a new id is free).
      return withFirstRound(
        created,
        start.firstRound,
        await this.group.run(() => this.insertStarted(row, thread.threadId, start)),
      );
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE')
        throw AppError.conflict('A thread with this id already exists');
      throw error;
    }
  }

  /** At shutdown, before the connection closes: the writes still queued for this turn's group are committed. */
  async close(): Promise<void> {
    this.group.flush();
  }

  async get(threadId: string): Promise<ThreadRecord | null> {
    // One read transaction: the row and its messages are of the same revision.
    return this.readRecord(threadId);
  }

  async getHead(threadId: string): Promise<ThreadHead | null> {
    const row = this.statements.selectHead.get(threadId) as (UsageRow & { revision: number }) | undefined;
    return row ? { revision: row.revision, usage: toUsage(row) } : null;
  }

  async list(workspace: string, userId: string, graphKey: string): Promise<ThreadSummary[]> {
    const rows = this.statements.selectSummaries.all(workspace, userId, graphKey) as Array<
      Pick<
        ThreadRow,
        | 'thread_id'
        | 'graph_key'
        | 'title'
        | 'type'
        | 'automation_id'
        | 'created_time'
        | 'updated_time'
        | 'visible_message_count'
      > & {
        has_interrupt: number;
      }
    >;
    return rows.map((row) => ({
      threadId: row.thread_id,
      graphKey: row.graph_key,
      title: row.title,
      ...origin(row),
      createdTime: row.created_time,
      lastUpdatedTime: row.updated_time,
      messageCount: row.visible_message_count,
      pendingInterrupt: row.has_interrupt === 1,
    }));
  }

  async listPending(
    workspace: string,
    userId: string,
    includeAutomations: boolean,
    limit: number,
  ): Promise<PendingThread[]> {
    const rows = this.statements.selectPending.all({
      workspace,
      user_id: userId,
      automations: includeAutomations ? 1 : 0,
      limit,
    }) as Array<
      Pick<ThreadRow, 'thread_id' | 'type' | 'automation_id' | 'user_id' | 'graph_key'> & { pending_interrupt: string }
    >;
    return rows.map((row) => ({
      threadId: row.thread_id,
      ...origin(row),
      userId: row.user_id,
      graphKey: row.graph_key,
      pendingInterrupt: JSON.parse(row.pending_interrupt) as PendingInterrupt,
    }));
  }

  async delete(threadId: string): Promise<boolean> {
    return this.db
      .transaction(() => {
        // Children first, explicitly: correct even on a connection without foreign_keys=ON.
        this.statements.deleteMessages.run(threadId);
        this.statements.deleteOperations.run(threadId);
        this.statements.deleteLease.run(threadId);
        return this.statements.deleteThread.run(threadId).changes > 0;
      })
      .immediate();
  }

  async commit(threadId: string, commit: ThreadCommit, end?: RunEndRecord): Promise<ThreadCommitResult> {
    if (!end) return this.group.run(() => this.commitRound(threadId, commit, Date.now()));
    const usage = end.usage ? usageParams(end.usage.workspace, threadId, end.usage.usage, end.usage.now) : null;
    return this.group.run(() => this.commitLastRound(threadId, commit, Date.now(), { holder: end.holder, usage }));
  }

  async acquireLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    // One conditional UPSERT: atomic across processes without a transaction around a read.
    const params = { thread_id: threadId, holder, expires_at: now + ttlMs, now };
    return this.group.run(() => this.statements.acquireLease.run(params).changes === 1);
  }

  async renewLease(threadId: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    return this.group.run(() => this.statements.renewLease.run(now + ttlMs, threadId, holder).changes === 1);
  }

  async releaseLease(threadId: string, holder: string, usage?: RunUsageRecord): Promise<void> {
    if (!usage) {
      await this.group.run(() => this.statements.releaseLease.run(threadId, holder));
      return;
    }
    const params = usageParams(usage.workspace, threadId, usage.usage, usage.now);
    await this.group.run(() => this.releaseWithUsage(threadId, holder, params));
  }

  async addUsage(workspace: string, threadId: string | null, usage: UsageTotals, now: number): Promise<void> {
    const params = usageParams(workspace, threadId, usage, now);
    await this.group.run(() => this.addUsageRows(threadId, params));
  }

  async getWorkspaceUsage(workspace: string): Promise<UsageTotals> {
    const row = this.statements.selectWorkspaceUsage.get(workspace) as UsageRow | undefined;
    return row ? toUsage(row) : { ...EMPTY_USAGE };
  }

  async reserveIdempotencyKey(scope: IdempotencyScope, holdMs: number, now: number): Promise<IdempotencyClaim> {
    return this.db
      .transaction((): IdempotencyClaim => {
        this.statements.purgeIdempotencyKeys.run(now);
        const row = this.statements.selectIdempotencyKey.get(scope.workspace, scope.userId, scope.key) as
          { state: 'in_progress' | 'completed'; response: string | null } | undefined;
        if (row?.state === 'completed')
          return { state: 'completed', response: JSON.parse(row.response ?? 'null') as unknown };
        if (row) return { state: 'in_progress' };
        const token = randomUUID();
        this.statements.insertIdempotencyKey.run(scope.workspace, scope.userId, scope.key, token, now, now + holdMs);
        return { state: 'reserved', token };
      })
      .immediate();
  }

  async renewIdempotencyKey(scope: IdempotencyScope, token: string, holdMs: number, now: number): Promise<boolean> {
    return (
      this.statements.renewIdempotencyKey.run(now + holdMs, scope.workspace, scope.userId, scope.key, token, now)
        .changes === 1
    );
  }

  async completeIdempotencyKey(
    scope: IdempotencyScope,
    token: string,
    response: unknown,
    keepMs: number,
  ): Promise<boolean> {
    const { changes } = this.statements.completeIdempotencyKey.run(
      JSON.stringify(response ?? null),
      keepMs,
      scope.workspace,
      scope.userId,
      scope.key,
      token,
    );
    return changes === 1;
  }

  async releaseIdempotencyKey(scope: IdempotencyScope, token: string): Promise<boolean> {
    return this.statements.releaseIdempotencyKey.run(scope.workspace, scope.userId, scope.key, token).changes === 1;
  }

  /** Usage added to the thread (when given) and to the workspace totals, inside the caller's transaction. */
  private addUsageIn(threadId: string | null, params: Record<string, unknown>): void {
    if (threadId !== null) this.statements.addThreadUsage.run(params);
    this.statements.addWorkspaceUsage.run(params);
  }

  private readRecordIn(threadId: string): ThreadRecord | null {
    const row = this.statements.selectThread.get(threadId) as ThreadRow | undefined;
    if (!row) return null;
    // Each message carries the thread of its row, whatever its JSON says.
    const messages = (
      this.statements.selectMessages.all(threadId) as Array<{ thread_id: string; message: string }>
    ).map((row) => ({ ...(JSON.parse(row.message) as ThreadMessage), threadId: row.thread_id }));
    return toRecord(row, messages);
  }

  private commitRoundIn(threadId: string, commit: ThreadCommit, now: number): ThreadCommitResult {
    const row = this.statements.selectCommitState.get(threadId) as
      Pick<ThreadRow, 'revision' | 'message_count' | 'updated_time'> | undefined;
    if (!row) throw AppError.notFound('Thread not found');
    const replayed = this.statements.selectOperation.get(threadId, commit.operationId);
    if (replayed) return { applied: false, revision: row.revision, lastUpdatedTime: row.updated_time };

    // A rolled-back turn: the messages from `discardFrom` on go, and the round is appended in their place.
    const cut =
      commit.discardFrom === undefined
        ? undefined
        : (this.statements.selectMessageSeq.get(threadId, commit.discardFrom) as { seq: number } | undefined)?.seq;
    const firstSeq = cut ?? row.message_count;
    const discardedVisible =
      cut === undefined ? 0 : (this.statements.countVisibleFrom.get(threadId, cut) as { visible: number }).visible;
    const visible = commit.append.filter((message) => message.role !== 'system' && message.role !== 'event').length;
    const updated = this.statements.updateRevision.run({
      thread_id: threadId,
      expected: commit.expectedRevision,
      appended: firstSeq + commit.append.length - row.message_count,
      visible: visible - discardedVisible,
      set_interrupt: commit.pendingInterrupt === undefined ? 0 : 1,
      pending_interrupt: commit.pendingInterrupt ? JSON.stringify(commit.pendingInterrupt) : null,
      title: commit.title ?? null,
      now,
    });
    if (updated.changes === 0) throw new ThreadRevisionConflictError(threadId, commit.expectedRevision, row.revision);

    if (cut !== undefined) this.statements.deleteMessagesFrom.run(threadId, cut);
    commit.append.forEach((message, index) => {
      this.statements.insertMessage.run(threadId, firstSeq + index, message.role, JSON.stringify(message));
    });
    const revision = commit.expectedRevision + 1;
    this.statements.insertOperation.run(threadId, commit.operationId, revision, now);
    return { applied: true, revision, lastUpdatedTime: now };
  }
}

/** The named parameters of the usage statements. */
function usageParams(
  workspace: string,
  threadId: string | null,
  usage: UsageTotals,
  now: number,
): Record<string, unknown> {
  return { workspace, thread_id: threadId, ...usageColumns(usage), now };
}

function prepare(db: Database) {
  const statement = (sql: string): Statement => db.prepare(sql);
  return {
    insertThread:
      statement(`INSERT INTO ai_threads (thread_id, workspace, user_id, graph_key, title, type, automation_id, created_time, updated_time)
      VALUES (@thread_id, @workspace, @user_id, @graph_key, @title, @type, @automation_id, @created_time, @created_time)`),
    selectThread: statement('SELECT * FROM ai_threads WHERE thread_id = ?'),
    selectMessages: statement('SELECT thread_id, message FROM ai_thread_messages WHERE thread_id = ? ORDER BY seq'),
    selectHead: statement(`SELECT revision, ${USAGE_COLUMNS} FROM ai_threads WHERE thread_id = ?`),
    selectSummaries:
      statement(`SELECT thread_id, graph_key, title, type, automation_id, created_time, updated_time, visible_message_count,
        pending_interrupt IS NOT NULL AS has_interrupt
      FROM ai_threads WHERE workspace = ? AND user_id = ? AND graph_key = ?
      ORDER BY updated_time DESC, thread_id DESC`),
    // The interrupt's own time orders the queue; both branches use the partial index ai_threads_waiting.
    selectPending:
      statement(`SELECT thread_id, type, automation_id, user_id, graph_key, pending_interrupt FROM ai_threads
      WHERE workspace = @workspace AND pending_interrupt IS NOT NULL
        AND ((type = 'chat' AND user_id = @user_id) OR (type = 'automation' AND @automations = 1))
      ORDER BY json_extract(pending_interrupt, '$.createdTime') DESC, thread_id DESC
      LIMIT @limit`),
    deleteMessages: statement('DELETE FROM ai_thread_messages WHERE thread_id = ?'),
    deleteOperations: statement('DELETE FROM ai_thread_operations WHERE thread_id = ?'),
    deleteLease: statement('DELETE FROM ai_thread_leases WHERE thread_id = ?'),
    deleteThread: statement('DELETE FROM ai_threads WHERE thread_id = ?'),
    selectCommitState: statement('SELECT revision, message_count, updated_time FROM ai_threads WHERE thread_id = ?'),
    selectOperation: statement('SELECT 1 FROM ai_thread_operations WHERE thread_id = ? AND operation_id = ?'),
    selectMessageSeq: statement(
      "SELECT seq FROM ai_thread_messages WHERE thread_id = ? AND json_extract(message, '$.id') = ? ORDER BY seq LIMIT 1",
    ),
    countVisibleFrom: statement(
      "SELECT COUNT(*) AS visible FROM ai_thread_messages WHERE thread_id = ? AND seq >= ? AND role IN ('user', 'assistant', 'tool')",
    ),
    deleteMessagesFrom: statement('DELETE FROM ai_thread_messages WHERE thread_id = ? AND seq >= ?'),
    updateRevision: statement(`UPDATE ai_threads SET
        revision = revision + 1,
        message_count = message_count + @appended,
        visible_message_count = visible_message_count + @visible,
        pending_interrupt = CASE WHEN @set_interrupt = 1 THEN @pending_interrupt ELSE pending_interrupt END,
        title = COALESCE(@title, title),
        updated_time = @now
      WHERE thread_id = @thread_id AND revision = @expected`),
    insertMessage: statement('INSERT INTO ai_thread_messages (thread_id, seq, role, message) VALUES (?, ?, ?, ?)'),
    insertOperation: statement(
      'INSERT INTO ai_thread_operations (thread_id, operation_id, revision, applied_time) VALUES (?, ?, ?, ?)',
    ),
    acquireLease:
      statement(`INSERT INTO ai_thread_leases (thread_id, holder, expires_at) VALUES (@thread_id, @holder, @expires_at)
      ON CONFLICT (thread_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE ai_thread_leases.holder = excluded.holder OR ai_thread_leases.expires_at <= @now`),
    renewLease: statement('UPDATE ai_thread_leases SET expires_at = ? WHERE thread_id = ? AND holder = ?'),
    releaseLease: statement('DELETE FROM ai_thread_leases WHERE thread_id = ? AND holder = ?'),
    addThreadUsage: statement(`UPDATE ai_threads SET
        prompt_tokens = prompt_tokens + @prompt_tokens, completion_tokens = completion_tokens + @completion_tokens,
        cached_tokens = cached_tokens + @cached_tokens, total_tokens = total_tokens + @total_tokens,
        cost_usd = cost_usd + @cost_usd, llm_calls = llm_calls + @llm_calls
      WHERE thread_id = @thread_id`),
    addWorkspaceUsage: statement(`INSERT INTO ai_workspace_usage (workspace, ${USAGE_COLUMNS}, updated_time)
      VALUES (@workspace, @prompt_tokens, @completion_tokens, @cached_tokens, @total_tokens, @cost_usd, @llm_calls, @now)
      ON CONFLICT (workspace) DO UPDATE SET
        prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens, total_tokens = total_tokens + excluded.total_tokens,
        cost_usd = cost_usd + excluded.cost_usd, llm_calls = llm_calls + excluded.llm_calls, updated_time = excluded.updated_time`),
    selectWorkspaceUsage: statement(`SELECT ${USAGE_COLUMNS} FROM ai_workspace_usage WHERE workspace = ?`),
    purgeIdempotencyKeys: statement('DELETE FROM ai_idempotency_keys WHERE expires_at <= ?'),
    selectIdempotencyKey: statement(
      'SELECT state, response FROM ai_idempotency_keys WHERE workspace = ? AND user_id = ? AND idem_key = ?',
    ),
    insertIdempotencyKey:
      statement(`INSERT INTO ai_idempotency_keys (workspace, user_id, idem_key, state, reservation, created_time, expires_at)
      VALUES (?, ?, ?, 'in_progress', ?, ?, ?)`),
    // Renew, complete and release touch only the reservation of the caller's token (migration 80).
    renewIdempotencyKey: statement(`UPDATE ai_idempotency_keys SET expires_at = ?
      WHERE workspace = ? AND user_id = ? AND idem_key = ? AND reservation = ? AND state = 'in_progress' AND expires_at > ?`),
    completeIdempotencyKey:
      statement(`UPDATE ai_idempotency_keys SET state = 'completed', response = ?, expires_at = created_time + ?
      WHERE workspace = ? AND user_id = ? AND idem_key = ? AND reservation = ? AND state = 'in_progress'`),
    releaseIdempotencyKey: statement(`DELETE FROM ai_idempotency_keys
      WHERE workspace = ? AND user_id = ? AND idem_key = ? AND reservation = ? AND state = 'in_progress'`),
  };
}

function toRecord(row: ThreadRow, messages: ThreadMessage[]): ThreadRecord {
  return {
    threadId: row.thread_id,
    workspace: row.workspace,
    userId: row.user_id,
    graphKey: row.graph_key,
    title: row.title,
    ...origin(row),
    messages,
    pendingInterrupt: row.pending_interrupt ? (JSON.parse(row.pending_interrupt) as PendingInterrupt) : null,
    revision: row.revision,
    usage: toUsage(row),
    createdTime: row.created_time,
    lastUpdatedTime: row.updated_time,
  };
}

function origin(row: Pick<ThreadRow, 'type' | 'automation_id'>): { type: ThreadType; automationId?: string } {
  return row.automation_id ? { type: row.type, automationId: row.automation_id } : { type: row.type };
}

function toUsage(row: UsageRow): UsageTotals {
  return {
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cachedTokens: row.cached_tokens,
    totalTokens: row.total_tokens,
    costUsd: row.cost_usd,
    llmCalls: row.llm_calls,
  };
}

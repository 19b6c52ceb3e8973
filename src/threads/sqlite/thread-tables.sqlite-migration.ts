import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * The threads' tables in the embedded store. Messages live in their own table so a
 * commit is an INSERT of the round's rows plus one guarded UPDATE of the thread's revision.
 * Leases and idempotency keys have no foreign key: both may exist before (or after) their thread.
 */
export const THREAD_TABLES_MIGRATION: SqliteMigration = {
  version: 2,
  name: 'ai_threads',
  up(db) {
    db.exec(`
      CREATE TABLE ai_threads (
        thread_id             TEXT    PRIMARY KEY,
        workspace             TEXT    NOT NULL,
        user_id               TEXT    NOT NULL,
        graph_key             TEXT    NOT NULL,
        title                 TEXT    NOT NULL,
        revision              INTEGER NOT NULL DEFAULT 0, -- bumped by every commit (optimistic concurrency)
        message_count         INTEGER NOT NULL DEFAULT 0, -- every stored message: the next sequence number
        visible_message_count INTEGER NOT NULL DEFAULT 0, -- user, assistant and tool messages (what clients see)
        pending_interrupt     TEXT,                       -- PendingInterrupt as JSON, NULL when none
        prompt_tokens         INTEGER NOT NULL DEFAULT 0,
        completion_tokens     INTEGER NOT NULL DEFAULT 0,
        cached_tokens         INTEGER NOT NULL DEFAULT 0,
        total_tokens          INTEGER NOT NULL DEFAULT 0,
        cost_usd              REAL    NOT NULL DEFAULT 0,
        llm_calls             INTEGER NOT NULL DEFAULT 0,
        created_time          INTEGER NOT NULL,
        updated_time          INTEGER NOT NULL
      );
      CREATE INDEX ai_threads_by_owner ON ai_threads (workspace, user_id, graph_key, updated_time);

      CREATE TABLE ai_thread_messages (
        thread_id TEXT    NOT NULL REFERENCES ai_threads (thread_id) ON DELETE CASCADE,
        seq       INTEGER NOT NULL, -- 0-based position in the conversation
        role      TEXT    NOT NULL,
        message   TEXT    NOT NULL, -- ThreadMessage as JSON
        PRIMARY KEY (thread_id, seq)
      ) WITHOUT ROWID;

      -- Commits already applied: a replay of one of these operation ids changes nothing.
      CREATE TABLE ai_thread_operations (
        thread_id    TEXT    NOT NULL REFERENCES ai_threads (thread_id) ON DELETE CASCADE,
        operation_id TEXT    NOT NULL,
        revision     INTEGER NOT NULL,
        applied_time INTEGER NOT NULL,
        PRIMARY KEY (thread_id, operation_id)
      ) WITHOUT ROWID;

      -- One run per thread across processes: taken when free, expired, or already held by the same holder.
      CREATE TABLE ai_thread_leases (
        thread_id  TEXT    PRIMARY KEY,
        holder     TEXT    NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE ai_workspace_usage (
        workspace         TEXT    PRIMARY KEY,
        prompt_tokens     INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens     INTEGER NOT NULL DEFAULT 0,
        total_tokens      INTEGER NOT NULL DEFAULT 0,
        cost_usd          REAL    NOT NULL DEFAULT 0,
        llm_calls         INTEGER NOT NULL DEFAULT 0,
        updated_time      INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- Idempotency-Key of POST /api/ai/chat, per principal.
      CREATE TABLE ai_idempotency_keys (
        workspace    TEXT    NOT NULL,
        user_id      TEXT    NOT NULL,
        idem_key     TEXT    NOT NULL,
        state        TEXT    NOT NULL CHECK (state IN ('in_progress', 'completed')),
        response     TEXT,             -- the first answer as JSON, once completed
        created_time INTEGER NOT NULL,
        expires_at   INTEGER NOT NULL,
        PRIMARY KEY (workspace, user_id, idem_key)
      ) WITHOUT ROWID;
      CREATE INDEX ai_idempotency_keys_by_expiry ON ai_idempotency_keys (expires_at);
    `);
  },
};

import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * Conversation memory in the embedded store (versions 30-39 are memory's). Records belong to a
 * thread: deleting the thread's row deletes its records, their mentions and its cursor (foreign keys
 * with ON DELETE CASCADE; the connection enables foreign_keys). Mentions live in their own table so
 * that "records mentioning node X of graph G" is an index lookup when a node changes.
 */
export const MEMORY_TABLES_MIGRATION: SqliteMigration = {
  version: 30,
  name: 'ai_memory',
  up(db) {
    db.exec(`
      CREATE TABLE ai_memory (
        memory_id       TEXT    PRIMARY KEY,
        workspace       TEXT    NOT NULL,
        thread_id       TEXT    NOT NULL REFERENCES ai_threads (thread_id) ON DELETE CASCADE,
        graph_key       TEXT    NOT NULL,
        level           INTEGER NOT NULL CHECK (level IN (0, 1, 2)),
        created_time    INTEGER NOT NULL,
        created_at      TEXT    NOT NULL, -- ISO 8601 with the service's UTC offset
        text            TEXT    NOT NULL,
        turn_id         TEXT,             -- level 0: the turn's user message id
        char_start      INTEGER NOT NULL,
        char_end        INTEGER NOT NULL,
        parent_ids      TEXT    NOT NULL, -- JSON array of memory ids
        key_findings    TEXT    NOT NULL, -- JSON array
        tools_used      TEXT    NOT NULL, -- JSON array
        topics          TEXT    NOT NULL, -- JSON array
        author          TEXT,             -- summaries: 'llm' or 'extractive'
        embedding       BLOB,             -- Float32 little-endian, NULL until embedded
        embedding_model TEXT,
        stale           INTEGER NOT NULL DEFAULT 0,
        stale_time      INTEGER
      );
      CREATE INDEX ai_memory_by_thread ON ai_memory (thread_id, created_time);
      CREATE INDEX ai_memory_by_level_age ON ai_memory (level, created_time);

      CREATE TABLE ai_memory_mentions (
        memory_id   TEXT NOT NULL REFERENCES ai_memory (memory_id) ON DELETE CASCADE,
        workspace   TEXT NOT NULL,
        graph_key   TEXT NOT NULL,
        node_key    TEXT NOT NULL,
        fingerprint TEXT NOT NULL, -- the node's content when the record was written
        PRIMARY KEY (memory_id, node_key)
      ) WITHOUT ROWID;
      CREATE INDEX ai_memory_mentions_by_node ON ai_memory_mentions (workspace, graph_key, node_key);

      -- How far each level's summaries reach, kept apart from the records so retention never makes
      -- the service summarize a conversation again.
      CREATE TABLE ai_memory_cursors (
        thread_id  TEXT    PRIMARY KEY REFERENCES ai_threads (thread_id) ON DELETE CASCADE,
        workspace  TEXT    NOT NULL,
        level1_end INTEGER NOT NULL DEFAULT 0,
        level2_end INTEGER NOT NULL DEFAULT 0
      ) WITHOUT ROWID;
    `);
  },
};

import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * The change log: one row per decided change of a graph, written in the same
 * transaction as the graph change. The record is JSON; the columns are what queries filter and sort on.
 */
export const OPERATION_TABLES_MIGRATION: SqliteMigration = {
  version: 270,
  name: 'ai_operations',
  up(db) {
    db.exec(`
      CREATE TABLE ai_operations (
        workspace    TEXT    NOT NULL,
        operation_id TEXT    NOT NULL,
        thread_id    TEXT    NOT NULL,
        graph_key    TEXT    NOT NULL,
        status       TEXT    NOT NULL,
        applied_at   INTEGER NOT NULL,
        reverted_by  TEXT,
        record       TEXT    NOT NULL,
        PRIMARY KEY (workspace, operation_id)
      );
      CREATE INDEX ai_operations_by_thread ON ai_operations (workspace, thread_id, applied_at);
      CREATE INDEX ai_operations_by_time ON ai_operations (applied_at);
    `);
  },
};

import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/** One always-sent list per graph: its node keys and node types as JSON arrays. */
export const ALWAYS_SEND_MIGRATION: SqliteMigration = {
  version: 300,
  name: 'ai_always_send',
  up(db) {
    db.exec(`
      CREATE TABLE ai_always_send (
        workspace    TEXT    NOT NULL,
        graph_key    TEXT    NOT NULL,
        node_keys    TEXT    NOT NULL, -- JSON array of node keys
        node_types   TEXT    NOT NULL, -- JSON array of node types
        updated_time INTEGER NOT NULL,
        PRIMARY KEY (workspace, graph_key)
      ) WITHOUT ROWID;
    `);
  },
};

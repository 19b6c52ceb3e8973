import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * Which nodes each write of a graph touched, one row per graph revision, so every process sharing the
 * file brings its in-memory indexes (BM25, and vectors with graph_embedding_changes) up to date for
 * just those nodes. A revision without a row (an import, a node-config change, a write older than
 * this table, or a row already pruned) means "anything may have changed": the indexes are rebuilt.
 * The writer keeps the last few hundred revisions.
 */
export const GRAPH_NODE_CHANGES_MIGRATION: SqliteMigration = {
  version: 4,
  name: 'graph_node_changes',
  up(db) {
    db.exec(`
      CREATE TABLE graph_node_changes (
        graph_id  INTEGER NOT NULL REFERENCES graphs (id) ON DELETE CASCADE,
        revision  INTEGER NOT NULL, -- the graph revision the write produced
        node_keys TEXT    NOT NULL, -- JSON array of the node keys it created, changed or deleted ([] for edge-only writes)
        PRIMARY KEY (graph_id, revision)
      ) WITHOUT ROWID;
    `);
  },
};

import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * Which nodes' vectors each embedding write of a graph set, one row per embedding revision: with
 * graph_node_changes (which nodes each other write touched, vectors dropped or carried included),
 * every process sharing the file brings its in-memory vector indexes up to date for just those
 * nodes. An embedding revision without a row (an import, a write older than this table, a very large
 * write, or a row already pruned) means "any vector may have changed": the vector index is rebuilt.
 * The writer keeps the last few hundred embedding revisions.
 */
export const GRAPH_EMBEDDING_CHANGES_MIGRATION: SqliteMigration = {
  version: 5,
  name: 'graph_embedding_changes',
  up(db) {
    db.exec(`
      CREATE TABLE graph_embedding_changes (
        graph_id           INTEGER NOT NULL REFERENCES graphs (id) ON DELETE CASCADE,
        embedding_revision INTEGER NOT NULL, -- the embedding revision the write produced
        node_keys          TEXT    NOT NULL, -- JSON array of the node keys whose vector it set
        PRIMARY KEY (graph_id, embedding_revision)
      ) WITHOUT ROWID;
    `);
  },
};

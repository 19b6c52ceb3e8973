import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * Built BM25 indexes of large graphs, so a restarted process or another one sharing the file loads
 * a graph's index instead of building it again: a snapshot is the index of one graph revision
 * (graph_id, revision), packed and serialized, in chunks of about a megabyte (written one short
 * transaction each, so other writers are not held up). A reader loads the latest complete snapshot
 * of the format its code builds, then catches up on the node changes recorded since (or rebuilds).
 * Snapshots are deleted with their graph, and replaced by the next one of the same graph.
 */
export const GRAPH_SEARCH_SNAPSHOTS_MIGRATION: SqliteMigration = {
  version: 290,
  name: 'graph_search_snapshots',
  up(db) {
    db.exec(`
      CREATE TABLE graph_search_snapshots (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        graph_id   INTEGER NOT NULL REFERENCES graphs (id) ON DELETE CASCADE,
        revision   INTEGER NOT NULL, -- the graph revision the index reflects
        format     TEXT    NOT NULL, -- the index format of the code that built it (others are never read)
        bytes      INTEGER NOT NULL,
        complete   INTEGER NOT NULL DEFAULT 0, -- 1 once every chunk is written
        created_at INTEGER NOT NULL
      );
      CREATE INDEX graph_search_snapshots_by_graph ON graph_search_snapshots (graph_id, revision);

      CREATE TABLE graph_search_snapshot_chunks (
        snapshot_id INTEGER NOT NULL REFERENCES graph_search_snapshots (id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        data        BLOB    NOT NULL,
        PRIMARY KEY (snapshot_id, seq)
      ) WITHOUT ROWID;
    `);
  },
};

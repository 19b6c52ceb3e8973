import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * A graph's nodes in row order, read a page at a time (`graph_id = ? AND id > ? ORDER BY id
 * LIMIT ?`: index builds, vector reads, embedding states): without this index SQLite took the
 * (graph_id, node_key) index and sorted every node of the graph for each page (over 100 ms per
 * page at 20,000 nodes). An index on graph_id holds the row id after it, in order.
 */
export const GRAPH_NODES_BY_GRAPH_MIGRATION: SqliteMigration = {
  version: 310,
  name: 'graph_nodes_by_graph',
  up(db) {
    db.exec('CREATE INDEX graph_nodes_by_graph ON graph_nodes (graph_id)');
  },
};

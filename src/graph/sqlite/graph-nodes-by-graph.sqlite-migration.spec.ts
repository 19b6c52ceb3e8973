import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { SqliteGraphStatements } from './sqlite-graph.statements';

describe("graph_nodes_by_graph (a graph's nodes read in pages, in row order)", () => {
  it("serves every paged read of a graph's nodes from the index, in row order, without sorting the graph", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'graph-nodes-by-graph-'));
    const db = openSqliteDatabase(dataDir);
    try {
      const statements = new SqliteGraphStatements(db);
      const paged = [
        [statements.nodeRowsPage, [1, 0, 100]],
        [statements.embeddingStatesPage, [1, 0, 100]],
        [statements.vectorsOfModelPage, [1, 'model', 0, 100]],
      ] as const;
      for (const [statement, parameters] of paged) {
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${statement.source}`)
          .all(...parameters)
          .map((step) => (step as { detail: string }).detail);
        expect(plan).toEqual([expect.stringContaining('USING INDEX graph_nodes_by_graph (graph_id=? AND rowid>?)')]);
      }
    } finally {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

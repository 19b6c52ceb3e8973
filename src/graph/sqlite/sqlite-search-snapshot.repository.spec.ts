import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { SqliteGraphStore } from './sqlite-graph.store';
import { ABANDONED_SNAPSHOT_MS, SqliteSearchSnapshotRepository } from './sqlite-search-snapshot.repository';

const WS = 'default';

describe(SqliteSearchSnapshotRepository.name, () => {
  let dir: string;
  let db: Database;
  let snapshots: SqliteSearchSnapshotRepository;
  let graphId: number;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'search-snapshots-'));
    db = openSqliteDatabase(dir);
    await new SqliteGraphStore(db).importGraph(WS, structuredClone(nbaWorkflowDemo));
    graphId = new SqliteGraphStatements(db).graphRef.get(WS, 'nba-workflow')?.id as number;
    snapshots = new SqliteSearchSnapshotRepository(db, 10);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const payload = (text: string) => Buffer.from(text.repeat(7));
  const rows = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

  it('stores a payload in chunks and gives back the latest complete one of the format asked', () => {
    snapshots.save(graphId, 3, 'f1', payload('abc'));
    expect(rows('graph_search_snapshot_chunks')).toBe(3);
    expect(snapshots.latest(graphId, 'f1')).toEqual({ revision: 3, payload: payload('abc') });
    expect(snapshots.latest(graphId, 'f2')).toBeNull();
    expect(snapshots.latest(graphId + 1, 'f1')).toBeNull();
  });

  it("replaces the graph's other snapshots once the new one is complete, and never reads an incomplete one", () => {
    snapshots.save(graphId, 3, 'f1', payload('abc'));
    snapshots.save(graphId, 5, 'f1', payload('defg'));
    expect(rows('graph_search_snapshots')).toBe(1);
    expect(snapshots.latest(graphId, 'f1')?.revision).toBe(5);
    // A writer that died before its last transaction: the row is there, incomplete.
    db.prepare(
      "INSERT INTO graph_search_snapshots (graph_id, revision, format, bytes, created_at) VALUES (?, 9, 'f1', 3, ?)",
    ).run(graphId, Date.now() - ABANDONED_SNAPSHOT_MS - 1);
    expect(snapshots.latest(graphId, 'f1')?.revision).toBe(5);
    expect(snapshots.removeAbandoned()).toBe(1);
    expect(snapshots.latest(graphId, 'f1')?.revision).toBe(5);
  });

  it('refuses a snapshot of a graph that is gone, leaving nothing behind, and goes with its graph', () => {
    expect(() => snapshots.save(9999, 1, 'f1', payload('abc'))).toThrow();
    expect(rows('graph_search_snapshots')).toBe(0);
    snapshots.save(graphId, 3, 'f1', payload('abc'));
    db.prepare('DELETE FROM graphs WHERE id = ?').run(graphId);
    expect([rows('graph_search_snapshots'), rows('graph_search_snapshot_chunks')]).toEqual([0, 0]);
  });
});

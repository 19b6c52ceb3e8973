import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

const RUNS = 'ai_automation_runs';
const OUTCOMES_BEFORE = "'failed', 'skipped_budget')";
const OUTCOMES_AFTER = "'failed', 'skipped_budget', 'skipped_too_large')";

/**
 * A run may end skipped_too_large. SQLite cannot change a CHECK constraint in place: the runs table is rebuilt from its
 * own stored definition (whatever columns earlier migrations added) with the wider outcome list, its rows copied, and
 * its indexes created again from their stored definitions.
 */
export const AUTOMATION_TOO_LARGE_MIGRATION: SqliteMigration = {
  version: 301,
  name: 'ai_automation_runs_skipped_too_large',
  up(db) {
    const table = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(RUNS) as
      { sql: string } | undefined;
    if (!table || !table.sql.includes(OUTCOMES_BEFORE))
      throw new Error(`${RUNS} does not have the outcome constraint this migration widens`);
    const indexes = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
      .all(RUNS) as Array<{ sql: string }>;
    const next = `${RUNS}_next`;
    db.exec(table.sql.replace(`CREATE TABLE ${RUNS}`, `CREATE TABLE ${next}`).replace(OUTCOMES_BEFORE, OUTCOMES_AFTER));
    db.exec(`INSERT INTO ${next} SELECT * FROM ${RUNS}; DROP TABLE ${RUNS}; ALTER TABLE ${next} RENAME TO ${RUNS};`);
    for (const index of indexes) db.exec(index.sql);
  },
};

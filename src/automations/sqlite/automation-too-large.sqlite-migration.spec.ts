import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../observability/logger';

configureLogging({ level: 'warn' });

describe('AUTOMATION_TOO_LARGE_MIGRATION', () => {
  it('widens the runs’ outcomes and keeps every column and index of the runs table', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'too-large-migration-'));
    const db = openSqliteDatabase(dataDir);
    try {
      const table = (
        db.prepare("SELECT sql FROM sqlite_master WHERE name = 'ai_automation_runs'").get() as { sql: string }
      ).sql;
      expect(table).toContain("'skipped_budget', 'skipped_too_large')");
      expect(table).toContain('acting_on_behalf_of');
      const indexes = (
        db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ai_automation_runs'")
          .all() as Array<{
          name: string;
        }>
      ).map((index) => index.name);
      expect(indexes).toEqual(
        expect.arrayContaining([
          'ai_automation_runs_by_automation',
          'ai_automation_runs_by_thread',
          'ai_automation_runs_by_start',
          'ai_automation_runs_interrupted',
        ]),
      );
    } finally {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

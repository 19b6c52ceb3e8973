import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { SqliteWalCheckpointHold } from './sqlite-wal-checkpoint.hold';

describe(SqliteWalCheckpointHold.name, () => {
  it("turns the connection's automatic checkpoints off while held, and back to what they were after the last release", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wal-checkpoint-hold-'));
    const db = openSqliteDatabase(dataDir);
    const threshold = () => db.pragma('wal_autocheckpoint', { simple: true });
    try {
      db.pragma('wal_autocheckpoint = 500');
      const hold = new SqliteWalCheckpointHold(db);
      const first = hold.hold();
      const second = hold.hold();
      expect(threshold()).toBe(0);
      first();
      first();
      expect(threshold()).toBe(0);
      second();
      expect(threshold()).toBe(500);
      hold.hold()();
      expect(threshold()).toBe(500);
    } finally {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

import BetterSqlite3, { Database } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { SqliteMigration } from './sqlite-migration';
import { SqliteMigrationRunner } from './sqlite-migration.runner';
import { SQLITE_MIGRATIONS } from './sqlite-migrations';

export const SQLITE_FILE_NAME = 'ai.sqlite';

/**
 * Opens (creating it and its directory when needed) `<dataDir>/ai.sqlite`, sets the connection
 * pragmas and applies pending migrations. Used by SqlitePersistenceModule (service and CLIs) and by
 * tests, so all see the same schema. The caller owns the connection and closes it.
 */
export function openSqliteDatabase(
  dataDir: string,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
): Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new BetterSqlite3(path.join(dataDir, SQLITE_FILE_NAME));
  try {
    // busy_timeout first: switching to WAL and migrating both wait for another process's lock.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    new SqliteMigrationRunner(migrations).run(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

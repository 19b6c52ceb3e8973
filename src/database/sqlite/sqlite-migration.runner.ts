import type { Database } from 'better-sqlite3';
import { Logger } from '../../observability/logger';
import { SqliteMigration } from './sqlite-migration';

const logger = new Logger('sqlite-migrations');

export interface SqliteMigrationReport {
  /** Versions applied by this run, in order (empty when the file was already up to date). */
  applied: number[];
  /** Highest version recorded in the file after the run. */
  currentVersion: number;
}

/**
 * Applies the migrations a database file has not seen yet, in version order, all inside ONE
 * `BEGIN IMMEDIATE` transaction: either every pending migration lands or none does.
 *
 * Two processes starting on the same file at once are safe: BEGIN IMMEDIATE takes the write lock
 * before `schema_migrations` is read, so the second runner waits (busy_timeout) and then finds
 * everything applied. Versions recorded by a newer build are tolerated (rolling restarts); a version
 * recorded under another name is refused, because it means two migrations claimed one number.
 */
export class SqliteMigrationRunner {
  private readonly migrations: readonly SqliteMigration[];

  constructor(migrations: readonly SqliteMigration[]) {
    assertWellOrdered(migrations);
    this.migrations = migrations;
  }

  run(db: Database): SqliteMigrationReport {
    const migrate = db.transaction((): SqliteMigrationReport => {
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    INTEGER PRIMARY KEY,
        name       TEXT    NOT NULL,
        applied_at INTEGER NOT NULL
      )`);
      const recorded = new Map<number, string>(
        (
          db.prepare('SELECT version, name FROM schema_migrations').all() as Array<{ version: number; name: string }>
        ).map((row) => [row.version, row.name]),
      );
      const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
      const applied: number[] = [];
      for (const migration of this.migrations) {
        const recordedName = recorded.get(migration.version);
        if (recordedName !== undefined) {
          if (recordedName !== migration.name) {
            throw new Error(
              `SQLite migration ${migration.version} is recorded as "${recordedName}" but this build calls it "${migration.name}": ` +
                'two migrations claim the same version',
            );
          }
          continue;
        }
        migration.up(db);
        record.run(migration.version, migration.name, Date.now());
        applied.push(migration.version);
      }
      const versions = [...recorded.keys(), ...applied];
      return { applied, currentVersion: versions.length > 0 ? Math.max(...versions) : 0 };
    });
    const report = migrate.immediate();
    for (const version of report.applied) {
      const migration = this.migrations.find((candidate) => candidate.version === version);
      logger.info('sqlite_migration_applied', { version, name: migration?.name });
    }
    return report;
  }
}

function assertWellOrdered(migrations: readonly SqliteMigration[]): void {
  const names = new Set<string>();
  let previous = 0;
  for (const migration of migrations) {
    if (!Number.isInteger(migration.version) || migration.version <= previous) {
      throw new Error(
        `SQLite migrations must have strictly increasing positive integer versions: ${migration.version} (${migration.name}) follows ${previous}`,
      );
    }
    if (!/^[a-z][a-z0-9_]*$/.test(migration.name) || names.has(migration.name)) {
      throw new Error(`SQLite migration ${migration.version} needs a unique snake_case name, got "${migration.name}"`);
    }
    names.add(migration.name);
    previous = migration.version;
  }
}

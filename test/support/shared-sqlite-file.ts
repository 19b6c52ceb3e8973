import { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { SqliteGraphStore, SqliteGraphStoreOptions } from '../../src/graph/sqlite/sqlite-graph.store';

/**
 * One embedded store file in a temp directory, opened by as many "processes" as a test wants: each
 * openStore() is its own connection and its own SqliteGraphStore (so its own in-memory indexes),
 * as another process sharing the file would have. close() closes them all and removes the file.
 */
export class SharedSqliteFile {
  private readonly connections: Database[] = [];

  private constructor(readonly dataDir: string) {}

  static create(prefix: string): SharedSqliteFile {
    return new SharedSqliteFile(mkdtempSync(path.join(tmpdir(), prefix)));
  }

  openStore(options: SqliteGraphStoreOptions = {}): SqliteGraphStore {
    const db = openSqliteDatabase(this.dataDir);
    this.connections.push(db);
    return new SqliteGraphStore(db, options);
  }

  /** Stores opened so far. */
  get storesOpened(): number {
    return this.connections.length;
  }

  close(): void {
    for (const db of this.connections.splice(0)) db.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

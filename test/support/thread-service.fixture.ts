import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AppConfig } from '../../src/config/app-config';
import { loadAppConfig } from '../../src/config/load-app-config';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { ThreadService } from '../../src/threads/thread.service';

export interface ThreadServiceInstance {
  service: ThreadService;
  repository: SqliteThreadRepository;
  db: Database;
}

/**
 * ThreadServices on one temp SQLite file, each with its own connection: `instance()` plays one more
 * service process sharing the store (roaming, leases).
 */
export class ThreadServiceFixture {
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'thread-service-'));
  readonly config: AppConfig;
  private readonly instances: ThreadServiceInstance[] = [];

  constructor(env: Record<string, string> = {}) {
    configureLogging({ level: 'error' });
    this.config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', DATA_DIR: this.dataDir, ...env });
  }

  instance(): ThreadServiceInstance {
    const db = openSqliteDatabase(this.dataDir);
    const repository = new SqliteThreadRepository(db);
    const instance = { service: new ThreadService(repository, this.config), repository, db };
    this.instances.push(instance);
    return instance;
  }

  async close(): Promise<void> {
    for (const instance of this.instances) {
      await instance.service.beforeApplicationShutdown();
      instance.db.close();
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

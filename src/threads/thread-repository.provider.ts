import type { FactoryProvider } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { SQLITE_DATABASE } from '../database/sqlite-database.token';
import { SqliteThreadRepository } from './sqlite/sqlite-thread.repository';
import type { ThreadRepository } from './thread.repository';
import { THREAD_REPOSITORY } from './thread-repository.token';

/**
 * Chooses the ThreadRepository adapter once, from STORE. The ArangoDB adapter (collection
 * `nodius_ai_threads`, PROTOCOL.md §2) plugs in here as one more case.
 */
export const threadRepositoryProvider: FactoryProvider<ThreadRepository> = {
  provide: THREAD_REPOSITORY,
  inject: [APP_CONFIG, SQLITE_DATABASE],
  useFactory: (config: AppConfig, sqlite: Database | null): ThreadRepository => {
    switch (config.store.kind) {
      case 'sqlite':
        if (!sqlite) throw new Error('STORE=sqlite but DatabaseModule provided no SQLite connection');
        return new SqliteThreadRepository(sqlite);
      case 'arango':
        throw new Error('STORE=arango: this build has no ArangoDB thread repository; threads need STORE=sqlite for now');
    }
  },
};

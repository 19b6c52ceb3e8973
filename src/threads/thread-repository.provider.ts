import type { FactoryProvider } from '@nestjs/common';
import type { Database as ArangoDatabase } from 'arangojs';
import type { Database } from 'better-sqlite3';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ARANGO_DATABASE } from '../database/arango-database.token';
import { SQLITE_DATABASE } from '../database/sqlite-database.token';
import { ArangoThreadRepository } from './arango/arango-thread.repository';
import { SqliteThreadRepository } from './sqlite/sqlite-thread.repository';
import type { ThreadRepository } from './thread.repository';
import { THREAD_REPOSITORY } from './thread-repository.token';

/**
 * Chooses the ThreadRepository adapter once, from STORE, on DatabaseModule's connection: the SQLite
 * file, or the ArangoDB connection the graph store shares (collection `nodius_ai_threads` and the
 * thread repository's own collections, ensured at start: docs/protocol.md §2).
 */
export const threadRepositoryProvider: FactoryProvider<Promise<ThreadRepository>> = {
  provide: THREAD_REPOSITORY,
  inject: [APP_CONFIG, SQLITE_DATABASE, ARANGO_DATABASE],
  useFactory: async (config: AppConfig, sqlite: Database | null, arango: ArangoDatabase | null): Promise<ThreadRepository> => {
    switch (config.store.kind) {
      case 'sqlite':
        if (!sqlite) throw new Error('STORE=sqlite but DatabaseModule provided no SQLite connection');
        return new SqliteThreadRepository(sqlite);
      case 'arango':
        if (!arango) throw new Error('STORE=arango but DatabaseModule provided no ArangoDB connection');
        return ArangoThreadRepository.open(arango);
    }
  },
};

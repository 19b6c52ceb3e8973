import type { FactoryProvider } from '@nestjs/common';
import type { Database as ArangoDatabase } from 'arangojs';
import type { Database } from 'better-sqlite3';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ARANGO_DATABASE } from '../database/arango-database.token';
import { SQLITE_DATABASE } from '../database/sqlite-database.token';
import { ArangoMemoryRepository } from './arango/arango-memory.repository';
import type { MemoryRepository } from './memory.repository';
import { MEMORY_REPOSITORY } from './memory-repository.token';
import { SqliteMemoryRepository } from './sqlite/sqlite-memory.repository';

/**
 * Chooses the MemoryRepository adapter once, from STORE, on DatabaseModule's connection: the SQLite
 * file (tables of migration 30), or the shared ArangoDB connection (its collections ensured at start).
 */
export const memoryRepositoryProvider: FactoryProvider<Promise<MemoryRepository>> = {
  provide: MEMORY_REPOSITORY,
  inject: [APP_CONFIG, SQLITE_DATABASE, ARANGO_DATABASE],
  useFactory: async (config: AppConfig, sqlite: Database | null, arango: ArangoDatabase | null): Promise<MemoryRepository> => {
    switch (config.store.kind) {
      case 'sqlite':
        if (!sqlite) throw new Error('STORE=sqlite but DatabaseModule provided no SQLite connection');
        return new SqliteMemoryRepository(sqlite);
      case 'arango':
        if (!arango) throw new Error('STORE=arango but DatabaseModule provided no ArangoDB connection');
        return ArangoMemoryRepository.open(arango);
    }
  },
};

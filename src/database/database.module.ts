import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Database as ArangoDatabase } from 'arangojs';
import type { Database } from 'better-sqlite3';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ArangoConnector } from './arango/arango-connector';
import { Logger } from '../observability/logger';
import { ARANGO_DATABASE } from './arango/arango-database.token';
import { openSqliteDatabase } from './sqlite/sqlite-database.opener';
import { SQLITE_DATABASE } from './sqlite/sqlite-database.token';

const logger = new Logger('database');

/**
 * The embedded store's connection (SQLITE_DATABASE): opened and migrated once at start when
 * STORE=sqlite, `null` otherwise; closed in the last shutdown phase, after every module that
 * writes to it has finished (their hooks run in onModuleDestroy / beforeApplicationShutdown).
 * Modules that keep data in the embedded store import DatabaseModule and inject SQLITE_DATABASE.
 * Likewise ARANGO_DATABASE when STORE=arango: one connection (ArangoConnector: waits for the server,
 * creates the database) shared by the graph store and the thread repository, closed last; `null` otherwise.
 */
@Module({
  providers: [
    {
      provide: SQLITE_DATABASE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Database | null => {
        if (config.store.kind !== 'sqlite') return null;
        const db = openSqliteDatabase(config.store.dataDir);
        logger.info('sqlite_opened', { file: db.name });
        return db;
      },
    },
    {
      provide: ARANGO_DATABASE,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig): Promise<ArangoDatabase | null> => {
        if (config.store.kind !== 'arango') return null;
        const { url, database, user, password } = config.store;
        return new ArangoConnector({ url, database, user, password }).connect();
      },
    },
  ],
  exports: [SQLITE_DATABASE, ARANGO_DATABASE],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    @Inject(SQLITE_DATABASE) private readonly db: Database | null,
    @Inject(ARANGO_DATABASE) private readonly arango: ArangoDatabase | null,
  ) {}

  onApplicationShutdown(): void {
    if (this.db?.open) this.db.close();
    this.arango?.close();
  }
}

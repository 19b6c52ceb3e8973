import type { FactoryProvider } from '@nestjs/common';
import type { Database as ArangoDatabase } from 'arangojs';
import type { Database } from 'better-sqlite3';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ARANGO_DATABASE } from '../database/arango/arango-database.token';
import { SQLITE_DATABASE } from '../database/sqlite/sqlite-database.token';
import { ArangoGraphStore } from './arango/arango-graph.store';
import { GraphStore } from './graph-store';
import { GRAPH_STORE } from './graph-store.token';
import { SqliteGraphStore } from './sqlite/sqlite-graph.store';

/**
 * Builds the GraphStore adapter that STORE selects: THE one place a store is chosen. Used by
 * GraphModule (below) and by the CLIs, which pass their own SQLite connection (null unless
 * STORE=sqlite; see openSqliteDatabase). The caller closes the store, then the connection.
 * With STORE=arango, the service passes DatabaseModule's shared connection (the store leaves it
 * open); without one (the CLIs) the store opens and owns its own.
 */
export async function createGraphStore(config: AppConfig, sqlite: Database | null, arango: ArangoDatabase | null = null): Promise<GraphStore> {
  switch (config.store.kind) {
    case 'sqlite':
      if (!sqlite) throw new Error('STORE=sqlite but no SQLite connection was opened');
      return new SqliteGraphStore(sqlite);
    case 'arango': {
      if (arango) return ArangoGraphStore.onSharedConnection(arango);
      // Waits for the server (retries with backoff), ensures the schema; fails start-up clearly otherwise.
      const { url, database, user, password } = config.store;
      return ArangoGraphStore.open({ url, database, user, password });
    }
  }
}

export const graphStoreProvider: FactoryProvider<Promise<GraphStore>> = {
  provide: GRAPH_STORE,
  inject: [APP_CONFIG, SQLITE_DATABASE, ARANGO_DATABASE],
  useFactory: createGraphStore,
};

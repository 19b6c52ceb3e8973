import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Database } from 'better-sqlite3';
import { ALWAYS_SEND_REPOSITORY } from '../always-send/always-send-repository.token';
import { SqliteAlwaysSendRepository } from '../always-send/sqlite/sqlite-always-send.repository';
import { AUTOMATION_REPOSITORY } from '../automations/automation-repository.token';
import { SqliteAutomationRepository } from '../automations/sqlite/sqlite-automation.repository';
import { OPERATION_REPOSITORY } from '../changes/operation-repository.token';
import { SqliteOperationRepository } from '../changes/sqlite/sqlite-operation.repository';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { SQLITE_DATABASE } from '../database/sqlite/sqlite-database.token';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { MEMORY_REPOSITORY } from '../memory/memory-repository.token';
import { SqliteMemoryRepository } from '../memory/sqlite/sqlite-memory.repository';
import { Logger } from '../observability/logger';
import { ACTION_POLICY_REPOSITORY } from '../policy/action-policy-repository.token';
import { SqliteActionPolicyRepository } from '../policy/sqlite/sqlite-action-policy.repository';
import { MEMBER_ROLE_REPOSITORY } from '../policy/member-roles/member-role-repository.token';
import { SqliteMemberRoleRepository } from '../policy/member-roles/sqlite/sqlite-member-role.repository';
import { PROVIDER_CONFIG_REPOSITORY } from '../providers/configs/provider-config-repository.token';
import { SqliteProviderConfigRepository } from '../providers/configs/sqlite/sqlite-provider-config.repository';
import { SqliteThreadRepository } from '../threads/sqlite/sqlite-thread.repository';
import { THREAD_REPOSITORY } from '../threads/thread-repository.token';
import { closePersistence, PERSISTED_STORES } from './persisted-stores';

const logger = new Logger('database');

export interface SqlitePersistenceSettings {
  /** The directory of `ai.sqlite` (DATA_DIR). */
  dataDir: string;
  /** RAG_INDEX_WAIT_MS (default: the store's). */
  indexWaitMs?: number;
}

/**
 * The embedded store (STORE=sqlite): one file `<DATA_DIR>/ai.sqlite`, opened and migrated once
 * (openSqliteDatabase), and every store adapter on that connection. The connection stays inside this
 * module; it exports the stores only (PERSISTED_STORES). At shutdown the stores close, then the file.
 */
@Module({})
export class SqlitePersistenceModule implements OnApplicationShutdown {
  static forRoot(settings: SqlitePersistenceSettings): DynamicModule {
    return {
      module: SqlitePersistenceModule,
      providers: [
        {
          provide: SQLITE_DATABASE,
          useFactory: (): Database => {
            const db = openSqliteDatabase(settings.dataDir);
            logger.info('sqlite_opened', { file: db.name });
            return db;
          },
        },
        {
          provide: GRAPH_STORE,
          inject: [SQLITE_DATABASE],
          // Large graphs' indexes are built off the event loop and snapshotted in the file.
          useFactory: (db: Database) => new SqliteGraphStore(db, { indexWorker: { waitMs: settings.indexWaitMs } }),
        },
        {
          provide: THREAD_REPOSITORY,
          inject: [SQLITE_DATABASE],
          useFactory: (db: Database) => new SqliteThreadRepository(db),
        },
        {
          provide: MEMORY_REPOSITORY,
          inject: [SQLITE_DATABASE],
          useFactory: (db: Database) => new SqliteMemoryRepository(db),
        },
        {
          provide: ACTION_POLICY_REPOSITORY,
          inject: [SQLITE_DATABASE],
          useFactory: (db: Database) => new SqliteActionPolicyRepository(db),
        },
        {
          provide: PROVIDER_CONFIG_REPOSITORY,
          inject: [SQLITE_DATABASE],
          useFactory: (db: Database) => new SqliteProviderConfigRepository(db),
        },
        {
          provide: AUTOMATION_REPOSITORY,
          inject: [SQLITE_DATABASE],
          useFactory: (db: Database) => new SqliteAutomationRepository(db),
        },
        {
          provide: OPERATION_REPOSITORY,
          inject: [SQLITE_DATABASE, GRAPH_STORE],
          useFactory: (db: Database, graphs: SqliteGraphStore) => new SqliteOperationRepository(db, graphs),
        },
        {
          provide: MEMBER_ROLE_REPOSITORY,
          inject: [SQLITE_DATABASE],
          useFactory: (db: Database) => new SqliteMemberRoleRepository(db),
        },
        {
          provide: ALWAYS_SEND_REPOSITORY,
          inject: [SQLITE_DATABASE],
          useFactory: (db: Database) => new SqliteAlwaysSendRepository(db),
        },
      ],
      exports: [...PERSISTED_STORES],
    };
  }

  constructor(
    @Inject(SQLITE_DATABASE) private readonly db: Database,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await closePersistence(this.moduleRef, () => {
      if (this.db.open) this.db.close();
    });
  }
}

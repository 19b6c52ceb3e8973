import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Database } from 'arangojs';
import { ArangoAlwaysSendRepository } from '../always-send/arango/arango-always-send.repository';
import { ALWAYS_SEND_REPOSITORY } from '../always-send/always-send-repository.token';
import { ArangoAutomationRepository } from '../automations/arango/arango-automation.repository';
import { AUTOMATION_REPOSITORY } from '../automations/automation-repository.token';
import { ArangoOperationRepository } from '../changes/arango/arango-operation.repository';
import { OPERATION_REPOSITORY } from '../changes/operation-repository.token';
import { ArangoConnectionSettings, ArangoConnector } from '../database/arango/arango-connector';
import { ARANGO_DATABASE } from '../database/arango/arango-database.token';
import { ArangoGraphStore } from '../graph/arango/arango-graph.store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { ArangoMemoryRepository } from '../memory/arango/arango-memory.repository';
import { MEMORY_REPOSITORY } from '../memory/memory-repository.token';
import { ArangoActionPolicyRepository } from '../policy/arango/arango-action-policy.repository';
import { ACTION_POLICY_REPOSITORY } from '../policy/action-policy-repository.token';
import { ArangoMemberRoleRepository } from '../policy/member-roles/arango/arango-member-role.repository';
import { MEMBER_ROLE_REPOSITORY } from '../policy/member-roles/member-role-repository.token';
import { ArangoProviderConfigRepository } from '../providers/configs/arango/arango-provider-config.repository';
import { PROVIDER_CONFIG_REPOSITORY } from '../providers/configs/provider-config-repository.token';
import { ArangoThreadRepository } from '../threads/arango/arango-thread.repository';
import { THREAD_REPOSITORY } from '../threads/thread-repository.token';
import { closePersistence, PERSISTED_STORES } from './persisted-stores';

/**
 * ArangoDB (STORE=arango): one connection per instance (ArangoConnector: waits for the server with
 * retries, creates the database when missing), and every store adapter on it, each ensuring its own
 * collections, indexes and views at start. The connection stays
 * inside this module; it exports the stores only (PERSISTED_STORES). At shutdown the stores close,
 * then the connection.
 */
@Module({})
export class ArangoPersistenceModule implements OnApplicationShutdown {
  static forRoot(settings: ArangoConnectionSettings): DynamicModule {
    return {
      module: ArangoPersistenceModule,
      providers: [
        { provide: ARANGO_DATABASE, useFactory: (): Promise<Database> => new ArangoConnector(settings).connect() },
        { provide: GRAPH_STORE, inject: [ARANGO_DATABASE], useFactory: (db: Database) => ArangoGraphStore.open(db) },
        {
          provide: THREAD_REPOSITORY,
          inject: [ARANGO_DATABASE],
          useFactory: (db: Database) => ArangoThreadRepository.open(db),
        },
        {
          provide: MEMORY_REPOSITORY,
          inject: [ARANGO_DATABASE],
          useFactory: (db: Database) => ArangoMemoryRepository.open(db),
        },
        {
          provide: ACTION_POLICY_REPOSITORY,
          inject: [ARANGO_DATABASE],
          useFactory: (db: Database) => ArangoActionPolicyRepository.open(db),
        },
        {
          provide: PROVIDER_CONFIG_REPOSITORY,
          inject: [ARANGO_DATABASE],
          useFactory: (db: Database) => ArangoProviderConfigRepository.open(db),
        },
        {
          provide: AUTOMATION_REPOSITORY,
          inject: [ARANGO_DATABASE],
          useFactory: (db: Database) => ArangoAutomationRepository.open(db),
        },
        {
          provide: OPERATION_REPOSITORY,
          inject: [ARANGO_DATABASE, GRAPH_STORE],
          useFactory: (db: Database, graphs: ArangoGraphStore) => ArangoOperationRepository.open(db, graphs),
        },
        {
          provide: MEMBER_ROLE_REPOSITORY,
          inject: [ARANGO_DATABASE],
          useFactory: (db: Database) => ArangoMemberRoleRepository.open(db),
        },
        {
          provide: ALWAYS_SEND_REPOSITORY,
          inject: [ARANGO_DATABASE],
          useFactory: (db: Database) => ArangoAlwaysSendRepository.open(db),
        },
      ],
      exports: [...PERSISTED_STORES],
    };
  }

  constructor(
    @Inject(ARANGO_DATABASE) private readonly db: Database,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await closePersistence(this.moduleRef, () => this.db.close());
  }
}

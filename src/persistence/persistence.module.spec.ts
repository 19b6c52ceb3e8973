import { Inject, Injectable, Module } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import type { Database as ArangoDatabase } from 'arangojs';
import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { preparedArangoReply, startFakeArango } from '../../test/support/fake-arango.server';
import { AppConfigModule } from '../config/app-config.module';
import { loadAppConfig } from '../config/load-app-config';
import { ARANGO_DATABASE } from '../database/arango/arango-database.token';
import { SQLITE_DATABASE } from '../database/sqlite/sqlite-database.token';
import { ArangoGraphStore } from '../graph/arango/arango-graph.store';
import { GraphStore } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { SqliteGraphStore } from '../graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../observability/logger';
import { ArangoThreadRepository } from '../threads/arango/arango-thread.repository';
import { SqliteThreadRepository } from '../threads/sqlite/sqlite-thread.repository';
import { THREAD_REPOSITORY } from '../threads/thread-repository.token';
import { ThreadService } from '../threads/thread.service';
import { ThreadsModule } from '../threads/threads.module';
import { PERSISTED_STORES } from './persisted-stores';
import { PersistenceModule } from './persistence.module';

/** A consumer that imports nothing: the stores reach it because PersistenceModule is global. */
@Injectable()
class StoreConsumer {
  constructor(@Inject(GRAPH_STORE) readonly graphs: GraphStore) {}
}

@Module({ providers: [StoreConsumer], exports: [StoreConsumer] })
class ConsumerModule {}

describe(PersistenceModule.name, () => {
  let dataDir: string;

  beforeEach(() => {
    configureLogging({ level: 'error' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'persistence-module-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function boot(env: Record<string, string>, extra: Array<typeof ThreadsModule> = []): Promise<TestingModule> {
    const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', ...env });
    const moduleRef = await Test.createTestingModule({
      imports: [AppConfigModule.forRoot(config), PersistenceModule.forRoot(config), ConsumerModule, ...extra],
    }).compile();
    await moduleRef.init();
    return moduleRef;
  }

  it('with STORE=sqlite, provides the SQLite adapters of every persisted store on one file, to modules that do not import it', async () => {
    const moduleRef = await boot({ DATA_DIR: dataDir });
    expect(moduleRef.get(StoreConsumer).graphs).toBeInstanceOf(SqliteGraphStore);
    expect(moduleRef.get(GRAPH_STORE, { strict: false })).toBe(moduleRef.get(StoreConsumer).graphs);
    expect(moduleRef.get(THREAD_REPOSITORY, { strict: false })).toBeInstanceOf(SqliteThreadRepository);
    for (const token of PERSISTED_STORES) expect(moduleRef.get(token, { strict: false })).toBeDefined();
    const db = moduleRef.get<Database>(SQLITE_DATABASE, { strict: false });
    expect(db.name).toBe(path.join(dataDir, 'ai.sqlite'));
    await moduleRef.close();
    expect(db.open).toBe(false);
  });

  it('with STORE=arango, provides the ArangoDB adapters of every persisted store on one connection', async () => {
    const server = await startFakeArango(preparedArangoReply);
    try {
      const moduleRef = await boot({ STORE: 'arango', ARANGO_URL: server.url });
      expect(moduleRef.get(StoreConsumer).graphs).toBeInstanceOf(ArangoGraphStore);
      expect(moduleRef.get(THREAD_REPOSITORY, { strict: false })).toBeInstanceOf(ArangoThreadRepository);
      for (const token of PERSISTED_STORES) expect(moduleRef.get(token, { strict: false })).toBeDefined();
      // One connection: the connector's probe is the only version call before the graph schema's own.
      const versionProbes = server.requests.filter((request) => request.path.endsWith('/_api/version'));
      expect(versionProbes).toHaveLength(2);
      expect(new Set(server.requests.map((request) => request.path.split('/')[2]))).toEqual(new Set(['nodius']));
      await moduleRef.close();
    } finally {
      await server.close();
    }
  });

  it('closes the stores after every writer finished and the connection last: leases are released before the file closes', async () => {
    const moduleRef = await boot({ DATA_DIR: dataDir }, [ThreadsModule]);
    const order: string[] = [];
    const db = moduleRef.get<Database>(SQLITE_DATABASE, { strict: false });
    const repository = moduleRef.get<SqliteThreadRepository>(THREAD_REPOSITORY, { strict: false });
    const graphs = moduleRef.get<SqliteGraphStore>(GRAPH_STORE, { strict: false });
    const releaseLease = repository.releaseLease.bind(repository);
    jest.spyOn(repository, 'releaseLease').mockImplementation(async (...args) => {
      order.push(`release lease (file open: ${db.open})`);
      return releaseLease(...args);
    });
    jest.spyOn(graphs, 'close').mockImplementation(async () => {
      order.push(`close graph store (file open: ${db.open})`);
    });
    const closeDb = db.close.bind(db);
    jest.spyOn(db, 'close').mockImplementation(() => {
      order.push('close file');
      return closeDb();
    });

    const threads = moduleRef.get(ThreadService);
    const thread = await threads.create({ userId: 'u', workspace: 'w', role: 'editor' }, 'g', 'held');
    await threads.acquireRun(thread.threadId);
    await moduleRef.close();
    expect(order).toEqual(['release lease (file open: true)', 'close graph store (file open: true)', 'close file']);
  });

  it('closes the ArangoDB connection after the stores', async () => {
    const server = await startFakeArango(preparedArangoReply);
    try {
      const moduleRef = await boot({ STORE: 'arango', ARANGO_URL: server.url });
      const order: string[] = [];
      jest
        .spyOn(moduleRef.get<ArangoGraphStore>(GRAPH_STORE, { strict: false }), 'close')
        .mockImplementation(async () => {
          order.push('close graph store');
        });
      const connection = moduleRef.get<ArangoDatabase>(ARANGO_DATABASE, { strict: false });
      const closeConnection = connection.close.bind(connection);
      jest.spyOn(connection, 'close').mockImplementation(() => {
        order.push('close connection');
        closeConnection();
      });
      await moduleRef.close();
      expect(order).toEqual(['close graph store', 'close connection']);
    } finally {
      await server.close();
    }
  });
});

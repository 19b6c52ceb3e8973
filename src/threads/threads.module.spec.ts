import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { preparedArangoReply, startFakeArango } from '../../test/support/fake-arango.server';
import { AppConfigModule } from '../config/app-config.module';
import { loadAppConfig } from '../config/load-app-config';
import { configureLogging } from '../observability/logger';
import { PersistenceModule } from '../persistence/persistence.module';
import { ArangoThreadRepository } from './arango/arango-thread.repository';
import { SqliteThreadRepository } from './sqlite/sqlite-thread.repository';
import { THREAD_REPOSITORY } from './thread-repository.token';
import { ThreadStore } from './thread.store';
import { ThreadsModule } from './threads.module';

describe(ThreadsModule.name, () => {
  let dataDir: string;

  beforeEach(() => {
    configureLogging({ level: 'error' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'threads-module-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('wires ThreadStore to the SQLite repository on the embedded store, and threads survive a restart', async () => {
    const boot = async () => {
      const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', DATA_DIR: dataDir });
      const moduleRef = await Test.createTestingModule({
        imports: [AppConfigModule.forRoot(config), PersistenceModule.forRoot(config), ThreadsModule],
      }).compile();
      await moduleRef.init();
      return moduleRef;
    };
    const principal = { userId: 'u', workspace: 'w', role: 'editor' as const };

    const first = await boot();
    expect(first.get(THREAD_REPOSITORY, { strict: false })).toBeInstanceOf(SqliteThreadRepository);
    const thread = await first.get(ThreadStore).create(principal, 'g', 'kept');
    await first.close();

    const second = await boot();
    expect((await second.get(ThreadStore).load(principal, thread.threadId)).title).toBe('kept');
    await second.close();
  });

  it('wires ThreadStore to the ArangoDB repository on the persistence module\'s connection with STORE=arango', async () => {
    const server = await startFakeArango(preparedArangoReply);
    try {
      const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', STORE: 'arango', ARANGO_URL: server.url });
      const moduleRef = await Test.createTestingModule({
        imports: [AppConfigModule.forRoot(config), PersistenceModule.forRoot(config), ThreadsModule],
      }).compile();
      await moduleRef.init();
      expect(moduleRef.get(THREAD_REPOSITORY, { strict: false })).toBeInstanceOf(ArangoThreadRepository);
      await moduleRef.get(ThreadStore).create({ userId: 'u', workspace: 'w', role: 'editor' }, 'g', 'stored');
      const insert = server.requests.find((request) => request.path === '/_db/nodius/_api/cursor');
      expect((insert?.body as { query: string }).query).toMatch(/^INSERT @\w+ INTO @@\w+$/);
      expect(Object.values((insert?.body as { bindVars: object }).bindVars)).toContain('nodius_ai_threads');
      await moduleRef.close();
    } finally {
      await server.close();
    }
  });
});

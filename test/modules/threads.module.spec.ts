import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { preparedArangoReply, startFakeArango } from '../support/fake-arango.server';
import { AppConfigModule } from '../../src/config/app-config.module';
import { loadAppConfig } from '../../src/config/load-app-config';
import { configureLogging } from '../../src/observability/logger';
import { PersistenceModule } from '../../src/persistence/persistence.module';
import { ArangoThreadRepository } from '../../src/threads/arango/arango-thread.repository';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { THREAD_REPOSITORY } from '../../src/threads/thread-repository.token';
import { ThreadService } from '../../src/threads/thread.service';
import { ThreadsModule } from '../../src/threads/threads.module';

describe(ThreadsModule.name, () => {
  let dataDir: string;

  beforeEach(() => {
    configureLogging({ level: 'error' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'threads-module-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('wires ThreadService to the SQLite repository on the embedded store, and threads survive a restart', async () => {
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
    const thread = await first.get(ThreadService).create(principal, 'g', 'kept');
    await first.close();

    const second = await boot();
    expect((await second.get(ThreadService).load(principal, thread.threadId)).title).toBe('kept');
    await second.close();
  });

  it("wires ThreadService to the ArangoDB repository on the persistence module's connection with STORE=arango", async () => {
    const server = await startFakeArango(preparedArangoReply);
    try {
      const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', STORE: 'arango', ARANGO_URL: server.url });
      const moduleRef = await Test.createTestingModule({
        imports: [AppConfigModule.forRoot(config), PersistenceModule.forRoot(config), ThreadsModule],
      }).compile();
      await moduleRef.init();
      expect(moduleRef.get(THREAD_REPOSITORY, { strict: false })).toBeInstanceOf(ArangoThreadRepository);
      await moduleRef.get(ThreadService).create({ userId: 'u', workspace: 'w', role: 'editor' }, 'g', 'stored');
      const insert = server.requests.find((request) => request.path === '/_db/nodius/_api/cursor');
      expect((insert?.body as { query: string }).query).toMatch(/^INSERT @\w+ INTO @@\w+$/);
      expect(Object.values((insert?.body as { bindVars: object }).bindVars)).toContain('nodius_ai_threads');
      await moduleRef.close();
    } finally {
      await server.close();
    }
  });
});

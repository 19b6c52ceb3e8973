import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AppConfigModule } from '../config/app-config.module';
import { configureLogging } from '../observability/logger';
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
      const moduleRef = await Test.createTestingModule({
        imports: [AppConfigModule.forRoot({ NODE_ENV: 'test', AUTH_MODE: 'none', DATA_DIR: dataDir }), ThreadsModule],
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

  it('refuses to start on ArangoDB until that adapter exists, saying why', async () => {
    const compile = Test.createTestingModule({
      imports: [
        AppConfigModule.forRoot({ NODE_ENV: 'test', AUTH_MODE: 'none', STORE: 'arango', ARANGO_URL: 'http://127.0.0.1:1' }),
        ThreadsModule,
      ],
    }).compile();
    await expect(compile).rejects.toThrow(/STORE=arango/);
  });
});

import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startFakeArango } from '../../test/support/fake-arango.server';
import { AppConfigModule } from '../config/app-config.module';
import { configureLogging } from '../observability/logger';
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

  it('wires ThreadStore to the ArangoDB repository on DatabaseModule\'s connection with STORE=arango', async () => {
    // A scripted ArangoDB: version probe, collections that exist, index ensures, queries that answer nothing.
    const server = await startFakeArango((request) => {
      if (request.path.endsWith('/_api/version')) return { status: 200, body: { server: 'arango', version: '3.12.4', license: 'community' } };
      if (request.path.includes('/_api/collection/')) return { status: 200, body: { error: false, code: 200, name: 'c', type: 2 } };
      return { status: 201, body: { error: false, code: 201, result: [], hasMore: false, isNewlyCreated: false } };
    });
    try {
      const moduleRef = await Test.createTestingModule({
        imports: [AppConfigModule.forRoot({ NODE_ENV: 'test', AUTH_MODE: 'none', STORE: 'arango', ARANGO_URL: server.url }), ThreadsModule],
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

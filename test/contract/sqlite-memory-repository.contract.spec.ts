import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { SqliteMemoryRepository } from '../../src/memory/sqlite/sqlite-memory.repository';
import { configureLogging } from '../../src/observability/logger';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { generateThreadId } from '../../src/threads/sortable-id.generator';
import { memoryRecord } from '../support/memory-records';
import { describeMemoryRepositoryContract } from './memory-repository.contract';

configureLogging({ level: 'warn' }); // every test opens a fresh file: one migration line each

function openStore() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-contract-'));
  const db = openSqliteDatabase(dataDir);
  const threads = new SqliteThreadRepository(db);
  return {
    db,
    threads,
    repository: new SqliteMemoryRepository(db),
    async createThread(workspace: string, threadId: string, graphKey: string) {
      await threads.create({ threadId, workspace, userId: 'alice', graphKey, title: 't', createdTime: Date.now() });
    },
    async deleteThread(_workspace: string, threadId: string) {
      await threads.delete(threadId);
    },
    async close() {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describeMemoryRepositoryContract(SqliteMemoryRepository.name, async () => openStore());

describe(`${SqliteMemoryRepository.name} and threads`, () => {
  it("removes a thread's memory when the thread itself is deleted (foreign keys), in the same transaction", async () => {
    const store = openStore();
    try {
      const threadId = generateThreadId();
      await store.createThread('ws', threadId, 'nba-workflow');
      await store.repository.insert(
        memoryRecord({ workspace: 'ws', threadId, mentions: [{ key: 'root', fingerprint: 'r' }] }),
      );
      await store.repository.insert(memoryRecord({ workspace: 'ws', threadId, level: 1, charRange: [0, 100] }));
      expect(await store.threads.delete(threadId)).toBe(true);
      expect(await store.repository.list('ws', threadId)).toEqual([]);
      expect(await store.repository.mentions('ws', 'nba-workflow', 'all')).toEqual([]);
      expect(await store.repository.cursor('ws', threadId)).toEqual({ level1End: 0, level2End: 0 });
    } finally {
      await store.close();
    }
  });

  it('refuses memory for a thread that does not exist, or exists in another workspace (not_found)', async () => {
    const store = openStore();
    try {
      await expect(
        store.repository.insert(memoryRecord({ workspace: 'ws', threadId: generateThreadId() })),
      ).rejects.toMatchObject({ code: 'not_found' });
      const threadId = generateThreadId();
      await store.createThread('ws', threadId, 'nba-workflow');
      await expect(store.repository.insert(memoryRecord({ workspace: 'other', threadId }))).rejects.toMatchObject({
        code: 'not_found',
      });
    } finally {
      await store.close();
    }
  });
});

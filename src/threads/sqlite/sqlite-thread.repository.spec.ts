import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../observability/logger';
import { generateMessageId, generateThreadId } from '../sortable-id.generator';
import { SqliteThreadRepository } from './sqlite-thread.repository';

// Behaviour is the contract suite's (test/contract/sqlite-thread-repository.contract.spec.ts); this is about cost.
describe(SqliteThreadRepository.name, () => {
  let dataDir: string;

  beforeEach(() => {
    configureLogging({ level: 'warn' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'sqlite-thread-repository-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('builds no transaction wrapper per request: reads, commits (also a conflicting one) and usage reuse the ones made at construction', async () => {
    const db = openSqliteDatabase(dataDir);
    try {
      const repository = new SqliteThreadRepository(db);
      const transaction = jest.spyOn(db, 'transaction');
      const threadId = generateThreadId();
      await repository.create({ threadId, workspace: 'w', userId: 'u', graphKey: 'g', title: 't', createdTime: 1 });
      const message = { id: generateMessageId(), role: 'user' as const, content: 'hello', createdTime: 2 };
      const first = await repository.commit(threadId, { operationId: 'op-1', expectedRevision: 0, append: [message] });
      await expect(repository.commit(threadId, { operationId: 'op-2', expectedRevision: 0, append: [] })).rejects.toThrow();
      await repository.addUsage('w', threadId, { promptTokens: 1, completionTokens: 1, cachedTokens: 0, totalTokens: 2, costUsd: 0, llmCalls: 1 }, 3);
      const stored = await repository.get(threadId);

      expect(first).toMatchObject({ applied: true, revision: 1 });
      expect(stored).toMatchObject({ revision: 1, messages: [message], usage: { totalTokens: 2, llmCalls: 1 } });
      expect(transaction).not.toHaveBeenCalled();
    } finally {
      db.close();
    }
  });
});

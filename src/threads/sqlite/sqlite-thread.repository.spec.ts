import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../observability/logger';
import { generateMessageId, generateThreadId } from '../sortable-id.generator';
import { ThreadRevisionConflictError } from '../thread-revision-conflict.error';
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

  it('builds no transaction wrapper per request: reads, commits (also a conflicting one), usage and a thread created for a run reuse the ones made at construction', async () => {
    const db = openSqliteDatabase(dataDir);
    try {
      const repository = new SqliteThreadRepository(db);
      const transaction = jest.spyOn(db, 'transaction');
      const threadId = generateThreadId();
      await repository.create({ threadId, workspace: 'w', userId: 'u', graphKey: 'g', title: 't', createdTime: 1 });
      const message = { id: generateMessageId(), role: 'user' as const, content: 'hello', createdTime: 2 };
      const first = await repository.commit(threadId, { operationId: 'op-1', expectedRevision: 0, append: [message] });
      await expect(
        repository.commit(threadId, { operationId: 'op-2', expectedRevision: 0, append: [] }),
      ).rejects.toThrow();
      await repository.addUsage(
        'w',
        threadId,
        { promptTokens: 1, completionTokens: 1, cachedTokens: 0, totalTokens: 2, costUsd: 0, llmCalls: 1 },
        3,
      );
      const stored = await repository.get(threadId);
      const started = generateThreadId();
      const lease = { holder: 'run-a', ttlMs: 60_000, now: 4 };
      await repository.create(
        { threadId: started, workspace: 'w', userId: 'u', graphKey: 'g', title: 't', createdTime: 4 },
        { lease, firstRound: { operationId: 'op-3', expectedRevision: 0, append: [message] } },
      );

      expect(first).toMatchObject({ applied: true, revision: 1 });
      expect(stored).toMatchObject({ revision: 1, messages: [message], usage: { totalTokens: 2, llmCalls: 1 } });
      expect(transaction).not.toHaveBeenCalled();
    } finally {
      db.close();
    }
  });
  it('creates a thread for a run in one transaction: when its first round is refused, neither the thread nor its lease exists', async () => {
    const db = openSqliteDatabase(dataDir);
    try {
      const repository = new SqliteThreadRepository(db);
      const threadId = generateThreadId();
      const message = { id: generateMessageId(), role: 'user' as const, content: 'hello', createdTime: 2 };
      const refused = repository.create(
        { threadId, workspace: 'w', userId: 'u', graphKey: 'g', title: 't', createdTime: 1 },
        {
          lease: { holder: 'run-a', ttlMs: 60_000, now: 1 },
          firstRound: { operationId: 'op-1', expectedRevision: 3, append: [message] },
        },
      );
      await expect(refused).rejects.toBeInstanceOf(ThreadRevisionConflictError);
      expect(await repository.get(threadId)).toBeNull();
      expect(await repository.acquireLease(threadId, 'run-b', 60_000, 2)).toBe(true);
    } finally {
      db.close();
    }
  });
});

/**
 * One racing process of the cross-process thread tests: opens the shared SQLite file with its own
 * connection, waits for "go", then for every thread tries to take the run lease and to commit on
 * revision 0, and reports what it won. Run with test/support/swc-register.js.
 */
import { randomUUID } from 'node:crypto';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { ThreadRevisionConflictError } from '../../src/threads/thread-revision-conflict.error';

export interface RaceRequest {
  dataDir: string;
  threadIds: string[];
  holder: string;
}

export interface RaceReport {
  holder: string;
  leasesWon: string[];
  commitsWon: string[];
  conflicts: number;
  reservationsWon: string[];
}

configureLogging({ level: 'warn' });

process.once('message', (request: RaceRequest) => {
  const db = openSqliteDatabase(request.dataDir);
  const repository = new SqliteThreadRepository(db);
  process.send?.('ready');
  process.once('message', () => {
    void race(repository, request).then((report) => {
      db.close();
      process.send?.(report, () => process.exit(0));
    });
  });
});

async function race(repository: SqliteThreadRepository, request: RaceRequest): Promise<RaceReport> {
  const report: RaceReport = {
    holder: request.holder,
    leasesWon: [],
    commitsWon: [],
    conflicts: 0,
    reservationsWon: [],
  };
  for (const threadId of request.threadIds) {
    if (await repository.acquireLease(threadId, request.holder, 60_000, Date.now())) report.leasesWon.push(threadId);
    try {
      const result = await repository.commit(threadId, {
        operationId: randomUUID(),
        expectedRevision: 0,
        append: [{ id: randomUUID(), role: 'user', content: `from ${request.holder}`, createdTime: Date.now() }],
      });
      if (result.applied) report.commitsWon.push(threadId);
    } catch (error) {
      if (!(error instanceof ThreadRevisionConflictError)) throw error;
      report.conflicts += 1;
    }
    const reservation = await repository.reserveIdempotencyKey(
      { workspace: 'race', userId: 'alice', key: threadId },
      60_000,
      Date.now(),
    );
    if (reservation.state === 'reserved') report.reservationsWon.push(threadId);
  }
  return report;
}

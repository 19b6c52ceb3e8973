import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { generateThreadId } from '../../src/threads/sortable-id.generator';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import type { RaceReport, RaceRequest } from '../support/sqlite-thread-race.child';
import { describeThreadRepositoryContract } from './thread-repository.contract';

configureLogging({ level: 'warn' }); // every test opens a fresh file: one migration line each

describeThreadRepositoryContract(SqliteThreadRepository.name, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'threads-contract-'));
  const db = openSqliteDatabase(dataDir);
  return {
    repository: new SqliteThreadRepository(db),
    async close() {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

describe(`${SqliteThreadRepository.name} across processes`, () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'threads-race-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives each lease, each revision and each idempotency key to exactly one of several processes sharing the file', async () => {
    const db = openSqliteDatabase(dataDir);
    const repository = new SqliteThreadRepository(db);
    const threadIds = Array.from({ length: 40 }, () => generateThreadId());
    for (const threadId of threadIds) {
      await repository.create({
        threadId,
        workspace: 'race',
        userId: 'alice',
        graphKey: 'g',
        title: 't',
        createdTime: Date.now(),
      });
    }

    const racers = ['p1', 'p2', 'p3'].map((holder) => startRacer({ dataDir, threadIds, holder }));
    await Promise.all(racers.map((racer) => racer.ready));
    racers.forEach((racer) => racer.go());
    const reports = await Promise.all(racers.map((racer) => racer.report));

    for (const threadId of threadIds) {
      expect(reports.filter((report) => report.leasesWon.includes(threadId))).toHaveLength(1);
      expect(reports.filter((report) => report.commitsWon.includes(threadId))).toHaveLength(1);
      expect(reports.filter((report) => report.reservationsWon.includes(threadId))).toHaveLength(1);
      const stored = await repository.get(threadId);
      expect(stored?.revision).toBe(1);
      expect(stored?.messages).toHaveLength(1);
    }
    expect(reports.reduce((sum, report) => sum + report.conflicts, 0)).toBe(threadIds.length * 2);
    db.close();
  });
});

function startRacer(request: RaceRequest): { ready: Promise<void>; go(): void; report: Promise<RaceReport> } {
  const child = fork(path.join(__dirname, '../support/sqlite-thread-race.child.ts'), [], {
    execArgv: ['--require', path.join(__dirname, '../support/swc-register.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code) => reject(new Error(`racer ${request.holder} exited with ${code} before reporting`)));
    child.once('error', reject);
  });
  const ready = new Promise<void>((resolve) => child.once('message', () => resolve()));
  const report = ready.then(
    () => new Promise<RaceReport>((resolve) => child.once('message', (message) => resolve(message as RaceReport))),
  );
  child.send(request);
  return {
    ready: Promise.race([ready, exited]),
    go: () => child.send('go'),
    report: Promise.race([report, exited]),
  };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { memoryRecord } from '../../../test/support/memory-records';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../observability/logger';
import { generateThreadId } from '../../threads/sortable-id.generator';
import { SqliteThreadRepository } from '../../threads/sqlite/sqlite-thread.repository';
import { SqliteMemoryRepository } from '../sqlite/sqlite-memory.repository';
import { MemoryRetentionJob } from './memory-retention.job';
import { MemoryRetention } from './memory.retention';

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

describe(MemoryRetention.name, () => {
  let dataDir: string;
  let db: ReturnType<typeof openSqliteDatabase>;
  let repository: SqliteMemoryRepository;
  let threadId: string;

  beforeEach(async () => {
    configureLogging({ level: 'error' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'memory-retention-'));
    db = openSqliteDatabase(dataDir);
    repository = new SqliteMemoryRepository(db);
    threadId = generateThreadId();
    await new SqliteThreadRepository(db).create({
      threadId,
      workspace: 'w',
      userId: 'u',
      graphKey: 'g',
      title: 't',
      createdTime: 1,
    });
    const at = (level: 0 | 1 | 2, daysAgo: number) =>
      memoryRecord({
        workspace: 'w',
        threadId,
        level,
        createdTime: NOW - daysAgo * DAY,
        charRange: [daysAgo, daysAgo + 1],
      });
    for (const record of [at(0, 400), at(1, 31), at(1, 29), at(2, 91), at(2, 89)]) await repository.insert(record);
  });

  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const levelsLeft = async () => (await repository.list('w', threadId)).map((record) => record.level).sort();

  it('trims short-term summaries after 30 days and long-term ones after 90, and keeps turns', async () => {
    expect(await new MemoryRetention(repository, { level1Days: 30, level2Days: 90 }).trim(NOW)).toEqual({
      level1: 1,
      level2: 1,
      deletedThreadMarks: 0,
    });
    expect(await levelsLeft()).toEqual([0, 1, 2]);
  });

  it('keeps an old short-term summary that no long-term summary covers yet, whatever its age', async () => {
    const uncovered = memoryRecord({
      workspace: 'w',
      threadId,
      level: 1,
      createdTime: NOW - 365 * DAY,
      charRange: [500, 600], // past the level-2 cursor (92)
    });
    await repository.insert(uncovered);
    expect((await new MemoryRetention(repository, { level1Days: 30, level2Days: 0 }).trim(NOW)).level1).toBe(1);
    expect((await repository.list('w', threadId, { level: 1 })).map((record) => record.memoryId)).toContain(
      uncovered.memoryId,
    );
  });

  it('keeps a level whose retention is 0', async () => {
    expect(await new MemoryRetention(repository, { level1Days: 0, level2Days: 1 }).trim(NOW)).toEqual({
      level1: 0,
      level2: 2,
      deletedThreadMarks: 0,
    });
    expect(await levelsLeft()).toEqual([0, 1, 1]);
  });

  it('runs on its schedule with croner and logs what it trimmed', async () => {
    const logs: LogEntry[] = [];
    configureLogging({ level: 'info' });
    setLogSink((entry) => logs.push(entry));
    const job = new MemoryRetentionJob(
      new MemoryRetention(repository, { level1Days: 30, level2Days: 90 }),
      '* * * * * *',
    );
    try {
      expect(job.nextRun()).toBeInstanceOf(Date);
      const deadline = Date.now() + 3000;
      while (!logs.some((entry) => entry.event === 'memory_trimmed') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(logs.find((entry) => entry.event === 'memory_trimmed')).toMatchObject({ trigger: 'schedule' });
    } finally {
      job.onModuleDestroy();
      resetLogSink();
    }
    expect(job.nextRun()).toBeNull();
  });
});

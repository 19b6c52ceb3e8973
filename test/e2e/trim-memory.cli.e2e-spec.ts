import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CliIo } from '../../src/cli/cli-context';
import { trimMemory } from '../../src/cli/trim-memory.cli';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { SqliteMemoryRepository } from '../../src/memory/sqlite/sqlite-memory.repository';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { generateThreadId } from '../../src/threads/sortable-id.generator';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { memoryRecord } from '../support/memory-records';

const DAY = 86_400_000;

class CapturedIo implements CliIo {
  out = '';
  err = '';
  readonly stdout = { write: (text: string) => (this.out += text) };
  readonly stderr = { write: (text: string) => (this.err += text) };
}

describe('npm run ai:trim-memory', () => {
  let dataDir: string;
  let threadId: string;

  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'trim-memory-cli-'));
    const db = openSqliteDatabase(dataDir);
    threadId = generateThreadId();
    await new SqliteThreadRepository(db).create({
      threadId,
      workspace: 'default',
      userId: 'alice',
      graphKey: 'nba-workflow',
      title: 't',
      createdTime: 1,
    });
    const repository = new SqliteMemoryRepository(db);
    const now = Date.now();
    const at = (level: 0 | 1 | 2, daysAgo: number) =>
      memoryRecord({
        workspace: 'default',
        threadId,
        level,
        createdTime: now - daysAgo * DAY,
        charRange: [daysAgo, daysAgo + 1],
      });
    for (const record of [at(0, 200), at(1, 45), at(1, 10), at(2, 120), at(2, 45)]) await repository.insert(record);
    db.close();
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const levelsLeft = async () => {
    const db = openSqliteDatabase(dataDir);
    try {
      return (await new SqliteMemoryRepository(db).list('default', threadId)).map((record) => record.level).sort();
    } finally {
      db.close();
    }
  };

  it('removes the summaries past their retention from the configured store and says how many', async () => {
    const io = new CapturedIo();
    expect(await trimMemory([], { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'error' }, io)).toBe(0);
    expect(io.out).toContain('level 1 (short-term summaries) older than 30 days: 1 removed');
    expect(io.out).toContain('level 2 (long-term summaries)  older than 90 days: 1 removed');
    expect(await levelsLeft()).toEqual([0, 1, 2]);
  });

  it('follows the configured retention, 0 keeping a level', async () => {
    const io = new CapturedIo();
    expect(
      await trimMemory(
        [],
        {
          NODE_ENV: 'test',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'error',
          MEMORY_L1_RETENTION_DAYS: '0',
          MEMORY_L2_RETENTION_DAYS: '30',
        },
        io,
      ),
    ).toBe(0);
    expect(io.out).toContain('level 1 (short-term summaries) kept (retention 0): 0 removed');
    expect(io.out).toContain('level 2 (long-term summaries)  older than 30 days: 2 removed');
    expect(await levelsLeft()).toEqual([0, 1, 1]);
  });

  it('refuses arguments it does not know', async () => {
    const io = new CapturedIo();
    expect(await trimMemory(['--everything'], { NODE_ENV: 'test', DATA_DIR: dataDir }, io)).toBe(2);
    expect(io.err).toContain('Usage: npm run ai:trim-memory');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqliteAlwaysSendRepository } from '../../src/always-send/sqlite/sqlite-always-send.repository';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { describeAlwaysSendRepositoryContract } from './always-send-repository.contract';

configureLogging({ level: 'warn' }); // every test opens a fresh file: one migration line each

describeAlwaysSendRepositoryContract(SqliteAlwaysSendRepository.name, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'always-send-contract-'));
  const opened = [openSqliteDatabase(dataDir)];
  return {
    repository: new SqliteAlwaysSendRepository(opened[0]),
    async reopen() {
      opened[0].close();
      opened.unshift(openSqliteDatabase(dataDir));
      return new SqliteAlwaysSendRepository(opened[0]);
    },
    async close() {
      for (const db of opened) if (db.open) db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqliteAutomationRepository } from '../../src/automations/sqlite/sqlite-automation.repository';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { describeAutomationRepositoryContract } from './automation-repository.contract';

configureLogging({ level: 'warn' });

describeAutomationRepositoryContract(SqliteAutomationRepository.name, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'automations-contract-'));
  // Two connections on one file: two instances of the service.
  const db = openSqliteDatabase(dataDir);
  const other = openSqliteDatabase(dataDir);
  return {
    repository: new SqliteAutomationRepository(db),
    another: new SqliteAutomationRepository(other),
    async close() {
      db.close();
      other.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

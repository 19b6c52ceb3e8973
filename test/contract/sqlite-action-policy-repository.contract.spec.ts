import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqliteActionPolicyRepository } from '../../src/policy/sqlite/sqlite-action-policy.repository';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { describeActionPolicyRepositoryContract } from './action-policy-repository.contract';

configureLogging({ level: 'warn' }); // every test opens a fresh file: one migration line each

describeActionPolicyRepositoryContract(SqliteActionPolicyRepository.name, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'policy-contract-'));
  const opened = [openSqliteDatabase(dataDir)];
  return {
    repository: new SqliteActionPolicyRepository(opened[0]),
    async reopen() {
      opened[0].close();
      opened.unshift(openSqliteDatabase(dataDir));
      return new SqliteActionPolicyRepository(opened[0]);
    },
    async close() {
      for (const db of opened) if (db.open) db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

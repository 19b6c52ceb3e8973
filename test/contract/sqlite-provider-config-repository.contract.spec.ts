import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { SqliteProviderConfigRepository } from '../../src/providers/configs/sqlite/sqlite-provider-config.repository';
import { describeProviderConfigRepositoryContract } from './provider-config-repository.contract';

configureLogging({ level: 'warn' });

describeProviderConfigRepositoryContract(SqliteProviderConfigRepository.name, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'provider-configs-contract-'));
  const db = openSqliteDatabase(dataDir);
  return {
    repository: new SqliteProviderConfigRepository(db),
    async close() {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../../src/observability/logger';
import { SqliteMemberRoleRepository } from '../../src/policy/member-roles/sqlite/sqlite-member-role.repository';
import { describeMemberRoleRepositoryContract } from './member-role-repository.contract';

configureLogging({ level: 'warn' }); // every test opens a fresh file: one migration line each

describeMemberRoleRepositoryContract(SqliteMemberRoleRepository.name, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'member-roles-contract-'));
  const opened = [openSqliteDatabase(dataDir)];
  return {
    repository: new SqliteMemberRoleRepository(opened[0]),
    async reopen() {
      opened[0].close();
      opened.unshift(openSqliteDatabase(dataDir));
      return new SqliteMemberRoleRepository(opened[0]);
    },
    async close() {
      for (const db of opened) if (db.open) db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

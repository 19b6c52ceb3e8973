import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqliteOperationRepository } from '../../src/changes/sqlite/sqlite-operation.repository';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { SqliteGraphStore } from '../../src/graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../../src/observability/logger';
import { describeOperationRepositoryContract } from './operation-repository.contract';

configureLogging({ level: 'warn' }); // every test opens a fresh file: one migration line each

describeOperationRepositoryContract(SqliteOperationRepository.name, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'change-log-contract-'));
  const db = openSqliteDatabase(dataDir);
  const graphs = new SqliteGraphStore(db);
  const reopened: Array<ReturnType<typeof openSqliteDatabase>> = [];
  return {
    repository: new SqliteOperationRepository(db, graphs),
    graphs,
    async reopen() {
      const again = openSqliteDatabase(dataDir);
      reopened.push(again);
      return new SqliteOperationRepository(again, new SqliteGraphStore(again));
    },
    async close() {
      for (const opened of [db, ...reopened]) if (opened.open) opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

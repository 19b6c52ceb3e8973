import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { SqliteGraphStore } from '../../src/graph/sqlite/sqlite-graph.store';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { describeGraphStoreContract } from './graph-store.contract';

beforeAll(() => setLogSink(() => undefined));
afterAll(() => resetLogSink());

describeGraphStoreContract(
  SqliteGraphStore.name,
  async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'graph-store-contract-'));
    const db = openSqliteDatabase(dataDir);
    return {
      store: new SqliteGraphStore(db),
      async cleanup() {
        db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
  { graphKeysScopedPerWorkspace: true },
);

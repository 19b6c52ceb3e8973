import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { SqliteGraphStore } from '../../src/graph/sqlite/sqlite-graph.store';
import { resetLogSink, setLogSink } from '../../src/observability/logger';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../../src/cli/seed.cli.ts');
const REGISTER = path.join(__dirname, '../support/swc-register.js');

/** Runs `npm run seed`'s entry point on the TypeScript sources, in a working directory without a .env. */
async function seed(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--require', REGISTER, CLI], {
      env: { PATH: process.env.PATH ?? '', ...env },
      cwd: tmpdir(),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run seed (src/cli/seed.cli.ts)', () => {
  let dataDir: string;
  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'seed-cli-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('imports the demo graph into the configured store, replacing it, and exits 0', async () => {
    const db = openSqliteDatabase(dataDir);
    const store = new SqliteGraphStore(db);
    const source = store.forWorkspace('default');
    try {
      const first = await seed({ DATA_DIR: dataDir });
      expect(first).toMatchObject({
        code: 0,
        stdout: expect.stringContaining('Seeded graph "nba-workflow" in workspace "default"'),
      });
      expect(first.stdout).toContain('9 nodes, 6 edges, 4 node configs');
      await source.deleteNode('nba-workflow', 'fetch-api');

      expect((await seed({ DATA_DIR: dataDir })).code).toBe(0);
      expect((await source.getNodes('nba-workflow')).length).toBe(9);
    } finally {
      await store.close();
      db.close();
    }
  });

  it('exits 1 and names the problem when the configuration is invalid', async () => {
    const result = await seed({ DATA_DIR: dataDir, STORE: 'mysql' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Seeding failed: Invalid configuration:[\s\S]*STORE/);
  });
});

import BetterSqlite3, { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { SqliteMigration } from './sqlite-migration';
import { SqliteMigrationRunner } from './sqlite-migration.runner';
import { SQLITE_MIGRATIONS } from './sqlite-migrations';

function openConnection(file: string): Database {
  const db = new BetterSqlite3(file);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  return db;
}

const tableNames = (db: Database): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
  ).map((row) => row.name);

/**
 * A worker thread that loads the runner from its TypeScript source (compiled on the fly by SWC, as
 * Jest does), waits on a shared barrier so both workers start migrating at the same instant, then
 * runs migrations whose first step is slow enough to overlap with the other worker.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { transformFileSync } = require('@swc/core');
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformFileSync(filename, {
    jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const Database = require('better-sqlite3');
const { SqliteMigrationRunner } = require(workerData.runnerPath);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('journal_mode = WAL');
const barrier = new Int32Array(workerData.barrier);
Atomics.add(barrier, 0, 1);
Atomics.notify(barrier, 0);
while (Atomics.load(barrier, 0) < 2) Atomics.wait(barrier, 0, Atomics.load(barrier, 0), 50);
const migrations = [
  { version: 1, name: 'slow_table', up(db) {
      db.exec('CREATE TABLE slow (id INTEGER PRIMARY KEY, value TEXT)');
      const insert = db.prepare('INSERT INTO slow (value) VALUES (?)');
      for (let i = 0; i < 20000; i += 1) insert.run('row ' + i);
  } },
  { version: 2, name: 'second_table', up(db) { db.exec('CREATE TABLE second (id INTEGER PRIMARY KEY)'); } },
];
try {
  const report = new SqliteMigrationRunner(migrations).run(db);
  parentPort.postMessage({ applied: report.applied });
} catch (error) {
  parentPort.postMessage({ error: String(error) });
} finally {
  db.close();
}
`;

function runWorker(file: string, barrier: SharedArrayBuffer): Promise<{ applied?: number[]; error?: string }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, barrier, runnerPath: path.join(__dirname, 'sqlite-migration.runner.ts') },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

describe(SqliteMigrationRunner.name, () => {
  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());

  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
    file = path.join(dir, 'test.sqlite');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const first: SqliteMigration = {
    version: 1,
    name: 'first',
    up: (db) => db.exec('CREATE TABLE first (id INTEGER PRIMARY KEY)'),
  };
  const second: SqliteMigration = {
    version: 2,
    name: 'second',
    up: (db) => db.exec('CREATE TABLE second (id INTEGER PRIMARY KEY)'),
  };

  it('applies pending migrations in order and records them', () => {
    const db = openConnection(file);
    expect(new SqliteMigrationRunner([first, second]).run(db)).toEqual({ applied: [1, 2], currentVersion: 2 });
    expect(tableNames(db)).toEqual(expect.arrayContaining(['first', 'second', 'schema_migrations']));
    expect(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual([
      { version: 1, name: 'first' },
      { version: 2, name: 'second' },
    ]);
    db.close();
  });

  it('applies only what was appended since the last run, on another connection', () => {
    const before = openConnection(file);
    new SqliteMigrationRunner([first]).run(before);
    before.close();
    const after = openConnection(file);
    expect(new SqliteMigrationRunner([first, second]).run(after)).toEqual({ applied: [2], currentVersion: 2 });
    expect(new SqliteMigrationRunner([first, second]).run(after)).toEqual({ applied: [], currentVersion: 2 });
    after.close();
  });

  it('rolls every pending migration back when one fails', () => {
    const db = openConnection(file);
    const broken: SqliteMigration = { version: 3, name: 'broken', up: (conn) => conn.exec('CREATE TABLE broken (') };
    expect(() => new SqliteMigrationRunner([first, second, broken]).run(db)).toThrow();
    expect(tableNames(db)).not.toContain('first');
    expect(tableNames(db)).not.toContain('second');
    expect(new SqliteMigrationRunner([first, second]).run(db).applied).toEqual([1, 2]);
    db.close();
  });

  it('refuses a version recorded under another name (two migrations claimed one number)', () => {
    const db = openConnection(file);
    new SqliteMigrationRunner([first]).run(db);
    const impostor: SqliteMigration = { ...second, version: 1 };
    expect(() => new SqliteMigrationRunner([impostor]).run(db)).toThrow(/recorded as "first".*"second"/);
    db.close();
  });

  it('tolerates versions recorded by a newer build', () => {
    const db = openConnection(file);
    new SqliteMigrationRunner([first, second]).run(db);
    expect(new SqliteMigrationRunner([first]).run(db)).toEqual({ applied: [], currentVersion: 2 });
    db.close();
  });

  it('rejects a list that is not strictly increasing or has duplicate names', () => {
    expect(() => new SqliteMigrationRunner([second, first])).toThrow(/strictly increasing/);
    expect(() => new SqliteMigrationRunner([first, { ...second, name: 'first' }])).toThrow(/unique snake_case name/);
    expect(() => new SqliteMigrationRunner([{ ...first, version: 0 }])).toThrow(/strictly increasing/);
  });

  it('keeps the shipped list well ordered', () => {
    expect(() => new SqliteMigrationRunner(SQLITE_MIGRATIONS)).not.toThrow();
  });

  it('lets two runners started at the same instant on one file apply each migration exactly once', async () => {
    // A file an earlier build already migrated: the runners' first statement is then a read.
    const existing = openConnection(file);
    new SqliteMigrationRunner([]).run(existing);
    existing.close();
    const barrier = new SharedArrayBuffer(4);
    const results = await Promise.all([runWorker(file, barrier), runWorker(file, barrier)]);
    expect(results.map((result) => result.error)).toEqual([undefined, undefined]);
    const applied = results.map((result) => result.applied ?? []);
    // One runner did the work, the other waited for the lock and found nothing left to do.
    expect(applied.map((versions) => versions.length).sort()).toEqual([0, 2]);
    const db = openConnection(file);
    expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').all()).toEqual([
      { version: 1 },
      { version: 2 },
    ]);
    expect(db.prepare('SELECT COUNT(*) AS count FROM slow').get()).toEqual({ count: 20000 });
    db.close();
  });
});

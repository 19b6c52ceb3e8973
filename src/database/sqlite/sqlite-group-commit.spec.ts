import BetterSqlite3, { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SqliteGroupCommit } from './sqlite-group-commit';

function open(file: string): Database {
  const db = new BetterSqlite3(file);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  return db;
}

describe(SqliteGroupCommit.name, () => {
  let dir: string;
  let db: Database;
  let other: Database;
  let group: SqliteGroupCommit;
  const rows = (connection: Database) =>
    (connection.prepare('SELECT v FROM t ORDER BY rowid').all() as Array<{ v: string }>).map((row) => row.v);

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'group-commit-'));
    db = open(path.join(dir, 'db.sqlite'));
    db.exec('CREATE TABLE t (v TEXT PRIMARY KEY)');
    other = open(path.join(dir, 'db.sqlite'));
    group = new SqliteGroupCommit(db);
  });
  afterEach(() => {
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (value: string) => () => {
    db.prepare('INSERT INTO t (v) VALUES (?)').run(value);
    return db.inTransaction;
  };

  it('runs the first write of a turn at once and alone, the next ones of the turn in one transaction, in order', async () => {
    const first = group.run(insert('a'));
    expect(rows(other)).toEqual(['a']); // committed in the caller's turn
    const rest = [group.run(insert('b')), group.run(insert('c'))];
    expect(rows(other)).toEqual(['a']); // queued for the end of the turn
    expect(await first).toBe(false); // an autocommit statement, as without grouping
    expect(await Promise.all(rest)).toEqual([true, true]);
    expect(rows(other)).toEqual(['a', 'b', 'c']);
  });

  it('settles each write only once its group is committed: another connection sees it', async () => {
    await group.run(insert('a'));
    const seen = await Promise.all(['b', 'c'].map((value) => group.run(insert(value)).then(() => rows(other))));
    expect(seen).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
  });

  it('rolls back and rejects a failing write alone; the rest of its group commits', async () => {
    await group.run(insert('a'));
    const outcomes = await Promise.allSettled([
      group.run(insert('b')),
      group.run(() => {
        db.prepare('INSERT INTO t (v) VALUES (?)').run('half');
        db.prepare('INSERT INTO t (v) VALUES (?)').run('a'); // duplicate key: the whole write goes
      }),
      group.run(insert('c')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(rows(other)).toEqual(['a', 'b', 'c']);
  });

  it('commits the queued writes at once when flushed (a connection about to close)', async () => {
    const first = group.run(insert('a'));
    const queued = group.run(insert('b'));
    group.flush();
    expect(rows(other)).toEqual(['a', 'b']);
    await Promise.all([first, queued]);
  });

  it('rejects a lone failing write in its caller’s turn and goes on', async () => {
    await group.run(insert('a'));
    await new Promise((resolve) => setImmediate(resolve));
    const failed = await group.run(insert('a')).then(
      (value) => ({ resolved: value }),
      (error: unknown) => ({ rejected: String(error) }),
    );
    expect(failed).toEqual({ rejected: expect.stringMatching(/UNIQUE/) });
    await new Promise((resolve) => setImmediate(resolve));
    await group.run(insert('b'));
    expect(rows(other)).toEqual(['a', 'b']);
  });
});

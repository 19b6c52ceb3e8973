import type { Database } from 'better-sqlite3';

/**
 * While held, commits on this connection never checkpoint the write-ahead log (wal_autocheckpoint
 * 0): SQLite otherwise copies the log into the file during the commit that crosses its threshold,
 * on the event loop (100 to 270 ms for a staged 20,000-node import, measured), and the holder
 * checkpoints from another connection instead (the index build worker). Held by several at once,
 * the setting comes back when the last one releases it.
 */
export class SqliteWalCheckpointHold {
  private holders = 0;
  private saved = 0;

  constructor(private readonly db: Database) {}

  /** Holds checkpoints off this connection; the returned function releases this hold (once). */
  hold(): () => void {
    if (this.holders === 0) {
      this.saved = Number(this.db.pragma('wal_autocheckpoint', { simple: true }));
      this.db.pragma('wal_autocheckpoint = 0');
    }
    this.holders += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      if (this.holders === 0 && this.db.open) this.db.pragma(`wal_autocheckpoint = ${Math.trunc(this.saved)}`);
    };
  }
}

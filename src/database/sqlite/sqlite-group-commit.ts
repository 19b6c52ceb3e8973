import type { Database } from 'better-sqlite3';

interface QueuedWrite {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the first write of a turn of the event
 * loop runs at once, in its own transaction (a lone conversation waits for nothing); the writes queued
 * after it in the same turn run, in the order they were queued, at the end of the turn (setImmediate)
 * in ONE `BEGIN IMMEDIATE` transaction, each inside its
 * own savepoint: a write that throws is rolled back alone and rejects alone, the others go on. Every
 * promise settles only after the COMMIT returned, so a write is durable when its caller sees it done
 * (as with a transaction of its own), and what each write checks (a revision, a lease's holder) it
 * checks under the write lock like before. A failed COMMIT rejects the whole group.
 *
 * What it saves in a burst of new conversations: one WAL append (and its page images) and one lock
 * round trip per group instead of per write.
 */
export class SqliteGroupCommit {
  private queue: QueuedWrite[] = [];
  /** A write already ran in this turn: the next ones wait for the turn's group. */
  private turnStarted = false;
  private readonly inSavepoint: (write: () => unknown) => unknown;
  private readonly commitGroup: (
    writes: QueuedWrite[],
  ) => Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>;

  constructor(db: Database) {
    this.inSavepoint = db.transaction((write: () => unknown) => write());
    this.commitGroup = db.transaction((writes: QueuedWrite[]) =>
      writes.map(({ write }) => {
        try {
          return { ok: true as const, value: this.inSavepoint(write) };
        } catch (error) {
          return { ok: false as const, error };
        }
      }),
    ).immediate;
  }

  /** Runs `write` (synchronous statements) now or in the group of this event-loop turn; settles after its COMMIT. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.turnStarted) {
        this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
        return;
      }
      this.turnStarted = true;
      setImmediate(() => this.flush());
      // Alone: as it would run without grouping (a statement commits on its own, a transaction is its own).
      try {
        resolve(write());
      } catch (error) {
        reject(error);
      }
    });
  }

  /** Commits the writes queued so far now (the turn's end does it otherwise; a closing connection cannot wait for it). */
  flush(): void {
    this.turnStarted = false;
    const writes = this.queue;
    if (writes.length === 0) return;
    this.queue = [];
    this.commit(writes);
  }

  private commit(writes: QueuedWrite[]): void {
    let outcomes: ReturnType<typeof this.commitGroup>;
    try {
      outcomes = this.commitGroup(writes);
    } catch (error) {
      for (const { reject } of writes) reject(error);
      return;
    }
    outcomes.forEach((outcome, index) =>
      outcome.ok ? writes[index].resolve(outcome.value) : writes[index].reject(outcome.error),
    );
  }
}

import type { Database, Statement } from 'better-sqlite3';
import { inImmediateTransaction } from './sqlite-immediate.transaction';

/** Bytes per chunk row: one short write transaction each. */
const CHUNK_BYTES = 1024 * 1024;
/** An incomplete snapshot this old belongs to a process that died while writing it. */
export const ABANDONED_SNAPSHOT_MS = 10 * 60_000;

export interface StoredSearchSnapshot {
  revision: number;
  payload: Buffer;
}

/**
 * The serialized search indexes of graphs (graph_search_snapshots): written in chunks of a megabyte,
 * one short IMMEDIATE transaction each, then marked complete in a last one that also deletes the
 * graph's other snapshots; a reader only ever sees complete ones. What the payload holds is the
 * caller's (SqliteIndexBuilder).
 */
export class SqliteSearchSnapshotRepository {
  private readonly latestComplete: Statement<[number, string], { id: number; revision: number }>;
  private readonly chunksOf: Statement<[number], { data: Buffer }>;
  private readonly insertSnapshot: Statement<[number, number, string, number, number]>;
  private readonly insertChunk: Statement<[number, number, Buffer]>;
  private readonly markComplete: Statement<[number]>;
  private readonly deleteOthers: Statement<[number, number]>;
  private readonly deleteAbandoned: Statement<[number]>;
  private readonly deleteSnapshot: Statement<[number]>;

  constructor(
    private readonly db: Database,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    this.latestComplete = db.prepare(
      'SELECT id, revision FROM graph_search_snapshots WHERE graph_id = ? AND format = ? AND complete = 1 ' +
        'ORDER BY revision DESC, id DESC LIMIT 1',
    );
    this.chunksOf = db.prepare('SELECT data FROM graph_search_snapshot_chunks WHERE snapshot_id = ? ORDER BY seq');
    this.insertSnapshot = db.prepare(
      'INSERT INTO graph_search_snapshots (graph_id, revision, format, bytes, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.insertChunk = db.prepare('INSERT INTO graph_search_snapshot_chunks (snapshot_id, seq, data) VALUES (?, ?, ?)');
    this.markComplete = db.prepare('UPDATE graph_search_snapshots SET complete = 1 WHERE id = ?');
    this.deleteOthers = db.prepare('DELETE FROM graph_search_snapshots WHERE graph_id = ? AND id <> ?');
    this.deleteSnapshot = db.prepare('DELETE FROM graph_search_snapshots WHERE id = ?');
    this.deleteAbandoned = db.prepare('DELETE FROM graph_search_snapshots WHERE complete = 0 AND created_at < ?');
  }

  /** The latest complete snapshot of the graph in `format`, read in one transaction; null when there is none. */
  latest(graphId: number, format: string): StoredSearchSnapshot | null {
    return this.db.transaction((): StoredSearchSnapshot | null => {
      const row = this.latestComplete.get(graphId, format);
      if (!row) return null;
      return { revision: row.revision, payload: Buffer.concat(this.chunksOf.all(row.id).map((chunk) => chunk.data)) };
    })();
  }

  /**
   * Stores the graph's snapshot of `revision`, replacing its others once complete. Throws AppError
   * store_unavailable when the file stays locked, or when the graph was deleted meanwhile (its row
   * is gone: the foreign key refuses the snapshot).
   */
  save(graphId: number, revision: number, format: string, payload: Buffer): void {
    const id = inImmediateTransaction(this.db, () =>
      Number(this.insertSnapshot.run(graphId, revision, format, payload.length, Date.now()).lastInsertRowid),
    );
    try {
      for (let offset = 0, seq = 0; offset < payload.length; offset += this.chunkBytes, seq += 1) {
        const chunk = payload.subarray(offset, offset + this.chunkBytes);
        inImmediateTransaction(this.db, () => this.insertChunk.run(id, seq, chunk));
      }
      inImmediateTransaction(this.db, () => {
        this.markComplete.run(id);
        this.deleteOthers.run(graphId, id);
      });
    } catch (error) {
      // Best effort: what stays is incomplete (never read) and removed by removeAbandoned or the graph's next snapshot.
      try {
        inImmediateTransaction(this.db, () => this.deleteSnapshot.run(id));
      } catch {
        // The error that matters is the first one.
      }
      throw error;
    }
  }

  /** Removes snapshots left incomplete by a process that died while writing them. */
  removeAbandoned(now = Date.now()): number {
    return inImmediateTransaction(this.db, () => this.deleteAbandoned.run(now - ABANDONED_SNAPSHOT_MS).changes);
  }
}

import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import {
  IndexBuildReply,
  IndexBuildRequest,
  IndexBuildTask,
  IndexBuildThreadData,
  tabulateStringLists,
} from './sqlite-index-build.messages';
import { BuiltSearchIndex, SqliteIndexBuilder } from './sqlite-index.builder';
import { SqliteGraphStatements } from './sqlite-graph.statements';
import { SqliteSearchSnapshotRepository } from './sqlite-search-snapshot.repository';

/**
 * The index build thread (started by SqliteIndexBuildWorker): a connection of its own to the store's
 * file and a SqliteIndexBuilder, one task at a time. Packed indexes go back with their buffers
 * transferred, not copied; a search index asked with `snapshot` is stored as the graph's snapshot
 * after it was sent (a failure to store it is only logged). It writes nothing else: a write waits
 * for the file's lock, and a wait holds the thread (better-sqlite3 is synchronous).
 */
const port = parentPort;
if (!port) throw new Error('sqlite-index-build.thread runs in a worker thread');
const { file } = workerData as IndexBuildThreadData;
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');
const statements = new SqliteGraphStatements(db);
const snapshots = new SqliteSearchSnapshotRepository(db);
const builder = new SqliteIndexBuilder(db, statements, snapshots);

const send = (reply: IndexBuildReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);
const log = (level: 'info' | 'warn', event: string, fields: Record<string, unknown>) =>
  send({ log: { level, event, fields } });

port.on('message', ({ id, task }: IndexBuildRequest) => {
  try {
    run(id, task);
  } catch (error) {
    send({ id, error: describe(error) });
  }
});

function run(id: number, task: IndexBuildTask): void {
  switch (task.kind) {
    case 'search':
      return answerSearch(id, task.graphId, builder.buildSearchIndex(task.graphId), task.snapshot);
    case 'searchSnapshot':
      return answerSearch(id, task.graphId, builder.loadSearchSnapshot(task.graphId), false);
    case 'stagedEnd':
      return answerSearch(id, task.graphId, builder.endStaged(task.graphId), false);
    case 'stagedSnapshot': {
      send({ id, result: null });
      const staged = builder.stagedSnapshotPayload(task.graphId, task.revision);
      return staged ? saveSnapshot(task.graphId, staged.revision, () => staged.payload) : undefined;
    }
    case 'vectors': {
      const built = tabulateStringLists(builder.buildVectorIndex(task.graphId, task.model));
      return send({ id, result: built }, transferablesOf(built));
    }
    case 'stagedBegin':
      builder.beginStaged(task.graphId, task.configs);
      return send({ id, result: null });
    case 'stagedRows':
      builder.stagedRowsCommitted(task.graphId);
      return send({ id, result: null });
    case 'stagedAbort':
      builder.abortStaged(task.graphId);
      return send({ id, result: null });
    case 'checkpoint': {
      const [state] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
      return send({ id, result: { walFrames: state?.log ?? 0, checkpointedFrames: state?.checkpointed ?? 0 } });
    }
  }
}

/**
 * Sends the index, then stores its snapshot when asked: the answer first, since a search may be
 * waiting for it. Its typed arrays are copied, not transferred (a few megabytes; the snapshot still
 * needs them), its strings go as string lists.
 */
function answerSearch(id: number, graphId: number, built: BuiltSearchIndex | null, snapshot: boolean): void {
  send({ id, result: tabulateStringLists(built) });
  if (built && snapshot) saveSnapshot(graphId, built.revision, () => builder.serializeSnapshot(built));
}

/** Stores a search index as the graph's snapshot; a failure is only logged. */
function saveSnapshot(graphId: number, revision: number, payloadOf: () => Buffer): void {
  const started = performance.now();
  try {
    const payload = payloadOf();
    builder.saveSearchSnapshot(graphId, revision, payload);
    log('info', 'search_snapshot_saved', {
      graphId,
      revision,
      bytes: payload.length,
      durationMs: Math.round(performance.now() - started),
    });
    // Here, not when the thread starts: a write waits for the lock, which an import being staged holds most of the time.
    const removed = snapshots.removeAbandoned();
    if (removed > 0) log('warn', 'search_snapshot_leftover_removed', { snapshots: removed });
  } catch (error) {
    log('warn', 'search_snapshot_save_failed', { graphId, error: describe(error) });
  }
}

/** The distinct buffers of the typed arrays in a built index (each allocated for it: nothing else uses them). */
function transferablesOf(value: unknown, found = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) found.add(value.buffer as ArrayBuffer);
  else if (value !== null && typeof value === 'object' && !Array.isArray(value))
    for (const field of Object.values(value)) transferablesOf(field, found);
  return [...found];
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

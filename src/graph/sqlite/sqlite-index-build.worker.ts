import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger } from '../../observability/logger';
import {
  IndexBuildReply,
  IndexBuildRequest,
  IndexBuildResults,
  IndexBuildTask,
  IndexBuildThreadData,
  restoringStringLists,
} from './sqlite-index-build.messages';
import { runStepsInSlices } from '../search/stepwise';
import { workerThreadEntry } from '../worker-thread.entry';
import { WorkerThreadHost } from '../../worker-threads/worker-thread.host';

/** Where the store builds large graphs' indexes: in this worker, from this size. */
export interface OffThreadIndexBuilds {
  worker: SqliteIndexBuildWorker;
  /** Graphs of at least this many nodes get their indexes built in the worker (and a BM25 snapshot). */
  minNodes: number;
}

/** The thread stops after this long without a task, giving its memory back. */
export const INDEX_BUILD_WORKER_IDLE_MS = 60_000;

const logger = new Logger('graph');

export interface SqliteIndexBuildWorkerOptions {
  idleMs?: number;
  /** Node options of the thread (default: the process's own, so a TypeScript loader given with --require carries over). */
  execArgv?: string[];
}

/**
 * Runs SqliteIndexBuilder's builds in a worker thread (sqlite-index-build.thread.ts) on the store's
 * file: the main thread only sends a graph id and unpacks what comes back. One thread, tasks in
 * order; it starts on the first task and stops after `idleMs` without one (never while a staged
 * build is open). When the thread fails or exits, the tasks waiting fail (their callers build in
 * process instead) and the next task starts a new thread.
 */
export class SqliteIndexBuildWorker {
  private readonly host: WorkerThreadHost;
  private readonly openStagedBuilds = new Set<number>();

  constructor(file: string, options: SqliteIndexBuildWorkerOptions = {}) {
    this.host = new WorkerThreadHost({
      name: 'index build worker',
      idleMs: options.idleMs ?? INDEX_BUILD_WORKER_IDLE_MS,
      create: () => {
        const entry = workerThreadEntry(
          __dirname,
          'sqlite-index-build.thread',
          path.extname(__filename),
          options.execArgv !== undefined,
        );
        if (!entry) throw new Error('The index build thread cannot start in this runtime');
        return new Worker(entry, {
          workerData: { file } satisfies IndexBuildThreadData,
          ...(options.execArgv ? { execArgv: options.execArgv } : {}),
        });
      },
      onNotice: (message) => {
        const { level, event, fields } = (message as Extract<IndexBuildReply, { log: unknown }>).log;
        if (level === 'warn') logger.warn(event, fields);
        else logger.info(event, fields);
      },
      mayStopIdle: () => this.openStagedBuilds.size === 0,
      onEnded: (error) => {
        this.openStagedBuilds.clear();
        logger.warn('index_build_worker_ended', { error: error.message });
      },
    });
  }

  /** Whether this runtime can start the thread without a loader given in `execArgv` (see workerThreadEntry). */
  static isAvailable(): boolean {
    return workerThreadEntry(__dirname, 'sqlite-index-build.thread', path.extname(__filename)) !== null;
  }

  /** A thread is running. */
  get running(): boolean {
    return this.host.running;
  }

  /** Tasks sent and not answered yet (the thread's queue). */
  get pendingTasks(): number {
    return this.host.pending;
  }

  run<K extends IndexBuildTask['kind']>(task: Extract<IndexBuildTask, { kind: K }>): Promise<IndexBuildResults[K]> {
    const reply = this.host.request<Extract<IndexBuildReply, { result: unknown }>>(
      (id) => ({ id, task }) satisfies IndexBuildRequest,
    );
    if (task.kind === 'stagedBegin') this.openStagedBuilds.add(task.graphId);
    if (task.kind === 'stagedEnd' || task.kind === 'stagedAbort') this.openStagedBuilds.delete(task.graphId);
    // Lists of strings come as one text each: cut apart in slices of the event loop.
    return reply.then(({ result }) => runStepsInSlices(restoringStringLists(result)) as Promise<IndexBuildResults[K]>);
  }

  /** Stops the thread now; tasks still waiting fail. */
  stop(): Promise<void> {
    this.openStagedBuilds.clear();
    return this.host.stop();
  }
}

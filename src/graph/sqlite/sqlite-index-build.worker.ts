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

/** Where the store builds large graphs' indexes: in this worker, from this size. */
export interface OffThreadIndexBuilds {
  worker: SqliteIndexBuildWorker;
  /** Graphs of at least this many nodes get their indexes built in the worker (and a BM25 snapshot). */
  minNodes: number;
}

/** The thread stops after this long without a task, giving its memory back. */
export const INDEX_BUILD_WORKER_IDLE_MS = 60_000;

const logger = new Logger('graph');

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

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
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly openStagedBuilds = new Set<number>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly idleMs: number;

  constructor(
    private readonly file: string,
    private readonly options: SqliteIndexBuildWorkerOptions = {},
  ) {
    this.idleMs = options.idleMs ?? INDEX_BUILD_WORKER_IDLE_MS;
  }

  /** Whether this runtime can start the thread without a loader given in `execArgv` (see workerThreadEntry). */
  static isAvailable(): boolean {
    return workerThreadEntry(__dirname, 'sqlite-index-build.thread', path.extname(__filename)) !== null;
  }

  /** A thread is running. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Tasks sent and not answered yet (the thread's queue). */
  get pendingTasks(): number {
    return this.pending.size;
  }

  run<K extends IndexBuildTask['kind']>(task: Extract<IndexBuildTask, { kind: K }>): Promise<IndexBuildResults[K]> {
    const worker = this.worker ?? this.start();
    this.cancelIdleStop();
    if (task.kind === 'stagedBegin') this.openStagedBuilds.add(task.graphId);
    if (task.kind === 'stagedEnd' || task.kind === 'stagedAbort') this.openStagedBuilds.delete(task.graphId);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      worker.postMessage({ id, task } satisfies IndexBuildRequest);
    });
  }

  /** Stops the thread now; tasks still waiting fail. */
  async stop(): Promise<void> {
    this.cancelIdleStop();
    const worker = this.worker;
    this.worker = null;
    this.openStagedBuilds.clear();
    const waiting = this.takePending();
    if (worker) await worker.terminate();
    for (const entry of waiting) entry.reject(new Error('index build worker stopped'));
  }

  private start(): Worker {
    const entry = workerThreadEntry(
      __dirname,
      'sqlite-index-build.thread',
      path.extname(__filename),
      this.options.execArgv !== undefined,
    );
    if (!entry) throw new Error('The index build thread cannot start in this runtime');
    const worker = new Worker(entry, {
      workerData: { file: this.file } satisfies IndexBuildThreadData,
      ...(this.options.execArgv ? { execArgv: this.options.execArgv } : {}),
    });
    // Never keeps the process alive on its own: whoever waits for a build holds its own request open.
    worker.unref();
    worker.on('message', (reply: IndexBuildReply) => {
      if ('log' in reply) {
        const { level, event, fields } = reply.log;
        if (level === 'warn') logger.warn(event, fields);
        else logger.info(event, fields);
        return;
      }
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      // Lists of strings come as one text each: cut apart in slices of the event loop.
      else if (waiting) runStepsInSlices(restoringStringLists(reply.result)).then(waiting.resolve, waiting.reject);
      if (this.pending.size === 0 && this.openStagedBuilds.size === 0) this.scheduleIdleStop();
    });
    const ended = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.openStagedBuilds.clear();
      this.cancelIdleStop();
      logger.warn('index_build_worker_ended', { error: error.message });
      for (const entry of this.takePending()) entry.reject(error);
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`index build worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private scheduleIdleStop(): void {
    this.cancelIdleStop();
    this.idleTimer = setTimeout(() => void this.stop(), this.idleMs);
    this.idleTimer.unref();
  }

  private cancelIdleStop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private takePending(): Pending[] {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    return waiting;
  }
}

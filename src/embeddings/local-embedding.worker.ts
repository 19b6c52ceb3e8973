import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerThreadEntry } from '../graph/worker-thread.entry';
import { throwIfAborted } from '../providers/llm-abort.error';
import { LocalEmbeddingRecipe } from './local-embedding.recipe';

/** The thread stops after this long without a batch, giving its memory (the word-vector table) back. */
export const LOCAL_EMBEDDING_WORKER_IDLE_MS = 60_000;

interface Pending {
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

/**
 * Computes batches of a local model's vectors in a worker thread (local-embedding.thread.ts): a
 * graph of 20,000 nodes is tens of seconds of CPU, which the service's event loop no longer spends
 * between its requests. One thread, batches in order; it starts on the first batch and stops after
 * `idleMs` without one; when it fails or exits, the batches waiting fail and the next one starts a
 * new thread.
 */
export class LocalEmbeddingWorker {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly recipe: LocalEmbeddingRecipe,
    private readonly options: { idleMs?: number; execArgv?: string[] } = {},
  ) {}

  /** Whether this runtime can start the thread without a loader given in `execArgv` (see workerThreadEntry). */
  static isAvailable(): boolean {
    return workerThreadEntry(__dirname, 'local-embedding.thread', path.extname(__filename)) !== null;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal);
    if (texts.length === 0) return [];
    const worker = this.worker ?? this.start();
    this.cancelIdleStop();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  /** Nest calls it at shutdown. */
  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  /** Stops the thread now; batches still waiting fail. */
  async stop(): Promise<void> {
    this.cancelIdleStop();
    const worker = this.worker;
    this.worker = null;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    if (worker) await worker.terminate();
    for (const entry of waiting) entry.reject(new Error('local embedding worker stopped'));
  }

  private start(): Worker {
    const { execArgv } = this.options;
    const entry = workerThreadEntry(__dirname, 'local-embedding.thread', path.extname(__filename), !!execArgv);
    if (!entry) throw new Error('The local embedding thread cannot start in this runtime');
    const worker = new Worker(entry, { workerData: this.recipe, ...(execArgv ? { execArgv } : {}) });
    worker.unref();
    worker.on('message', (message: { id: number; vectors?: Float32Array[]; error?: string }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.vectors as Float32Array[]);
      if (this.pending.size === 0) this.scheduleIdleStop();
    });
    const ended = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.cancelIdleStop();
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const item of waiting) item.reject(error);
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`local embedding worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private scheduleIdleStop(): void {
    this.cancelIdleStop();
    this.idleTimer = setTimeout(() => void this.stop(), this.options.idleMs ?? LOCAL_EMBEDDING_WORKER_IDLE_MS);
    this.idleTimer.unref();
  }

  private cancelIdleStop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

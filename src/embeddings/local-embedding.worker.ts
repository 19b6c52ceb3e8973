import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerThreadEntry } from '../graph/worker-thread.entry';
import { throwIfAborted } from '../providers/llm-abort.error';
import { LocalEmbeddingRecipe } from './local-embedding.recipe';
import { WorkerThreadHost } from '../worker-threads/worker-thread.host';

/** The thread stops after this long without a batch, giving its memory (the word-vector table) back. */
export const LOCAL_EMBEDDING_WORKER_IDLE_MS = 60_000;

/**
 * Computes batches of a local model's vectors in a worker thread (local-embedding.thread.ts): a
 * graph of 20,000 nodes is tens of seconds of CPU, which the service's event loop no longer spends
 * between its requests. One thread, batches in order; it starts on the first batch and stops after
 * `idleMs` without one; when it fails or exits, the batches waiting fail and the next one starts a
 * new thread.
 */
export class LocalEmbeddingWorker {
  private readonly host: WorkerThreadHost;

  constructor(recipe: LocalEmbeddingRecipe, options: { idleMs?: number; execArgv?: string[] } = {}) {
    const { execArgv } = options;
    this.host = new WorkerThreadHost({
      name: 'local embedding worker',
      idleMs: options.idleMs ?? LOCAL_EMBEDDING_WORKER_IDLE_MS,
      create: () => {
        const entry = workerThreadEntry(__dirname, 'local-embedding.thread', path.extname(__filename), !!execArgv);
        if (!entry) throw new Error('The local embedding thread cannot start in this runtime');
        return new Worker(entry, { workerData: recipe, ...(execArgv ? { execArgv } : {}) });
      },
    });
  }

  /** Whether this runtime can start the thread without a loader given in `execArgv` (see workerThreadEntry). */
  static isAvailable(): boolean {
    return workerThreadEntry(__dirname, 'local-embedding.thread', path.extname(__filename)) !== null;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    throwIfAborted(signal);
    if (texts.length === 0) return [];
    const reply = await this.host.request<{ id: number; vectors: Float32Array[] }>((id) => ({ id, texts }));
    return reply.vectors;
  }

  /** Nest calls it at shutdown. */
  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  /** Stops the thread now; batches still waiting fail. */
  stop(): Promise<void> {
    return this.host.stop();
  }
}
